import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkFormat } from '../../src/engine/checks/format.js';
import { isDisposableDomain } from '../../src/engine/lists/disposable.js';
import { readWordList } from '../../src/engine/lists/load.js';
import { isKnownProvider } from '../../src/engine/lists/providers.js';
import { isRoleLocalPart } from '../../src/engine/lists/roles.js';

describe('isDisposableDomain', () => {
  it.each([
    ['mailinator.com', 'on the npm list'],
    ['MAILINATOR.com.', 'any case, trailing dot'],
    ['eu.mailinator.com', 'subdomain of a listed domain'],
    ['alias.33mail.com', "subdomain of an entry of the npm list's wildcard file"],
    ['mail.tm', 'one of our additions in data/disposable-extra.txt'],
    ['inbox.emailondeck.com', 'subdomain of one of our additions'],
  ])('%s is disposable (%s)', (domain) => {
    expect(isDisposableDomain(domain)).toBe(true);
  });

  it.each([
    ['gmail.com', 'a real provider'],
    ['example.org', 'a reserved example domain'],
    ['examplemailinator.com', 'ends with a listed name, but not at a label boundary'],
    ['com', 'a bare top-level domain'],
    ['bücher.de', 'IDN'],
  ])('%s is not disposable (%s)', (domain) => {
    expect(isDisposableDomain(domain)).toBe(false);
  });
});

describe('isRoleLocalPart', () => {
  it.each(['admin', 'Admin', 'POSTMASTER', 'info', 'sales+eu', 'noreply', 'no-reply', 'do-not-reply', '"support"', 'abuse', 'webmaster'])(
    '%s is a role',
    (local) => {
      expect(isRoleLocalPart(local)).toBe(true);
    },
  );

  it.each(['john', 'john.smith', 'admin.john', 'johnadmin', 'j+admin', 'sales.team', ''])('%s is not a role', (local) => {
    expect(isRoleLocalPart(local)).toBe(false);
  });
});

describe('isKnownProvider', () => {
  it('knows providers by the domain of the address', () => {
    expect(isKnownProvider('gmail.com')).toBe(true);
    expect(isKnownProvider('Outlook.COM')).toBe(true);
    expect(isKnownProvider('proton.me', [])).toBe(true);
  });

  it('knows custom domains by their MX hosts', () => {
    expect(isKnownProvider('acme.test', ['aspmx.l.google.com.'])).toBe(true);
    expect(isKnownProvider('contoso.test', ['contoso-test.mail.protection.outlook.com'])).toBe(true);
    expect(isKnownProvider('shop.test', ['mx-backup.shop.test', 'mta5.am0.yahoodns.net'])).toBe(true);
    expect(isKnownProvider('own.test', ['mail.protonmail.ch'])).toBe(true);
  });

  it('does not match on look-alikes', () => {
    expect(isKnownProvider('acme.test', ['mx.acme.test'])).toBe(false);
    expect(isKnownProvider('acme.test', ['evilgoogle.com'])).toBe(false);
    expect(isKnownProvider('mail.gmail.com')).toBe(false);
    expect(isKnownProvider('gmail.com.evil.test')).toBe(false);
  });
});

describe('data files', () => {
  it('every role entry is a plain local part', () => {
    const roles = readWordList('role-local-parts.txt');
    expect(roles.length).toBeGreaterThanOrEqual(60);
    for (const role of roles) expect(checkFormat(`${role}@example.com`).ok, role).toBe(true);
  });

  it('every disposable addition is a hostname', () => {
    for (const domain of readWordList('disposable-extra.txt')) {
      expect(checkFormat(`x@${domain}`).ok, domain).toBe(true);
    }
  });

  it('every provider entry says why and holds lower-case hostnames', () => {
    const { providers } = JSON.parse(readFileSync(new URL('../../data/providers.json', import.meta.url), 'utf8')) as {
      providers: { name: string; why: string; domains: string[]; mxSuffixes: string[] }[];
    };
    for (const provider of providers) {
      expect(provider.why.length, provider.name).toBeGreaterThan(10);
      for (const name of [...provider.domains, ...provider.mxSuffixes]) {
        expect(name, provider.name).toBe(name.toLowerCase());
        expect(checkFormat(`x@${name}`).ok, name).toBe(true);
      }
    }
  });
});
