import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProviderRules, ProviderRules } from '../../src/engine/rules/provider-rules.js';
import { parseProviderRules, ProviderRulesError } from '../../src/engine/rules/rules-file.js';
import { testTempDir } from '../support/temp-dirs.js';

const BUILT_IN = readFileSync(new URL('../../data/provider-rules.json', import.meta.url), 'utf8');

/** The error parseProviderRules throws for `text`, for its fields. */
function failure(text: string): ProviderRulesError {
  try {
    parseProviderRules('rules.json', text);
  } catch (error) {
    if (error instanceof ProviderRulesError) return error;
    throw error;
  }
  throw new Error('the rules were accepted');
}

describe('the built-in provider rules (data/provider-rules.json)', () => {
  it('pass the checks, and every rule says where it comes from', () => {
    const table = parseProviderRules('data/provider-rules.json', BUILT_IN);
    expect(Object.keys(table)).toEqual(
      expect.arrayContaining(['google.com', 'olc.protection.outlook.com', 'mail.protection.outlook.com', 'yahoodns.net', 'pphosted.com']),
    );
    for (const rule of Object.values(table)) expect(rule.source.length).toBeGreaterThan(10);
  });

  it('do not take a 250 from Yahoo or a filtering gateway as proof, nor probe Yahoo for catch-all', () => {
    const rules = loadProviderRules(null);
    expect(rules.of('mta5.am0.yahoodns.net')).toMatchObject({ suffix: 'yahoodns.net', acceptProvesMailbox: false, skipCatchAllProbe: true });
    for (const host of ['mx0a-001.pphosted.com', 'us-smtp-inbound-1.mimecast.com', 'd1.ess.barracudanetworks.com']) {
      expect(rules.of(host)?.acceptProvesMailbox).toBe(false);
    }
    expect(rules.of('gmail-smtp-in.l.google.com')?.acceptProvesMailbox).toBe(true);
  });
});

describe('ProviderRules.of', () => {
  const rules = new ProviderRules({
    'outlook.com': { sessionLimit: 3, source: 'broad' },
    'mail.protection.outlook.com': { sessionLimit: 1, source: 'narrow' },
  });

  it('takes the longest matching suffix, whatever the case or a trailing dot', () => {
    expect(rules.of('Contoso-COM.mail.protection.outlook.com.')).toMatchObject({ suffix: 'mail.protection.outlook.com', sessionLimit: 1 });
    expect(rules.of('outlook-com.olc.protection.outlook.com')).toMatchObject({ suffix: 'outlook.com', sessionLimit: 3 });
    expect(rules.of('outlook.com')).toMatchObject({ suffix: 'outlook.com' });
  });

  it('matches whole labels only', () => {
    expect(rules.of('mx.notoutlook.com')).toBeUndefined();
    expect(rules.of('mx.example.org')).toBeUndefined();
  });
});

describe('parseProviderRules: a bad file names its line and field', () => {
  it('invalid JSON: the line where parsing stopped', () => {
    const error = failure('{\n  "a.test": {\n    "source": "x",\n  }\n}\n');
    expect(error.line).toBe(4);
    expect(error.message).toMatch(/^provider rules rules\.json line 4: \(syntax\): not valid JSON/);
  });

  it('an unknown field: its own line, and the known ones', () => {
    const error = failure('{\n  "a.test": { "source": "x" },\n  "b.test": {\n    "source": "y",\n    "sessionLimt": 2\n  }\n}\n');
    expect(error).toMatchObject({ file: 'rules.json', line: 5, field: '"b.test".sessionLimt' });
    expect(error.message).toContain('unknown field (known: sessionLimit, rcptsPerSession');
  });

  it('a field of the wrong type or out of range', () => {
    expect(failure('{\n  "a.test": {\n    "source": "x",\n    "sessionLimit": "2"\n  }\n}')).toMatchObject({ line: 4, field: '"a.test".sessionLimit' });
    expect(failure('{"a.test": {"source": "x", "rcptsPerSession": 0}}').message).toContain('must be a whole number from 1 to 1000');
    expect(failure('{"a.test": {"source": "x",\n"acceptProvesMailbox": "no"}}')).toMatchObject({ line: 2, field: '"a.test".acceptProvesMailbox' });
    expect(failure('{"a.test": {"source": "x",\n"postmasterProvesSender": 0}}')).toMatchObject({ line: 2, field: '"a.test".postmasterProvesSender' });
    expect(failure('{"a.test": {"source": "  "}}').field).toBe('"a.test".source');
  });

  it('a field named like an Object method is still unknown', () => {
    expect(failure('{"a.test": {"source": "x", "toString": 1}}').message).toContain('unknown field');
  });

  it('a rule without a source, a suffix that is no host name suffix, a rule that is no object, a file that is no object', () => {
    expect(failure('{\n\n  "a.test": { "pauseMs": 10 }\n}')).toMatchObject({ line: 3, field: '"a.test"' });
    expect(failure('{"Google.com": {"source": "x"}}').message).toContain('lower-case MX host suffix');
    expect(failure('{"com": {"source": "x"}}').field).toBe('"com"');
    expect(failure('{"a.test": []}').message).toContain('must be an object of rule fields');
    expect(failure('[]').field).toBe('(top level)');
  });

  it('a proxy that is not a socks5 URL, never echoing the value (it may carry a password)', () => {
    const error = failure('{"a.test": {"source": "x", "proxy": "http://user:secret@proxy.test:3128"}}');
    expect(error.field).toBe('"a.test".proxy');
    expect(error.message).not.toContain('secret');
  });
});

describe('loadProviderRules: the operator file over the built-in one', () => {
  it('adds suffixes and replaces a built-in rule whole', () => {
    const dir = testTempDir('rules');
    const file = join(dir, 'rules.json');
    writeFileSync(
      file,
      JSON.stringify({ 'google.com': { sessionLimit: 1, source: 'our contract' }, 'corp.example': { acceptProvesMailbox: false, source: 'observed' } }),
    );
    const rules = loadProviderRules(file);
    expect(rules.of('aspmx.l.google.com')).toEqual({ suffix: 'google.com', sessionLimit: 1, source: 'our contract' });
    expect(rules.of('mx1.corp.example')?.acceptProvesMailbox).toBe(false);
    expect(rules.of('mta5.am0.yahoodns.net')?.acceptProvesMailbox).toBe(false);
  });
});

describe('postmasterProvesSender', () => {
  it('is true or false, and a rule that sets it false keeps it', () => {
    const table = parseProviderRules('rules.json', '{"gateway.test": {"postmasterProvesSender": false, "source": "takes postmaster from anyone"}}');
    expect(new ProviderRules(table).of('mx1.gateway.test')).toMatchObject({ suffix: 'gateway.test', postmasterProvesSender: false });
  });
});

describe('checkHosts', () => {
  it("is a short list of the provider's own mail domains, checked like every field", () => {
    const table = parseProviderRules('rules.json', '{"gateway.test": {"checkHosts": ["gateway-own.test"], "source": "x"}}');
    expect(new ProviderRules(table).of('tenant.gateway.test')).toMatchObject({ suffix: 'gateway.test', checkHosts: ['gateway-own.test'] });
    for (const bad of ['"gateway-own.test"', '[]', '["Gateway.test"]', '["com"]', '[1]', '["a.test", "b.test", "c.test", "d.test", "e.test", "f.test"]']) {
      const error = failure(`{"gateway.test": {"source": "x",\n"checkHosts": ${bad}}}`);
      expect(error).toMatchObject({ line: 2, field: '"gateway.test".checkHosts' });
      expect(error.message).toContain("lower-case mail domains of the provider's own");
    }
  });

  it('names a domain of its own for each big provider built in', () => {
    const rules = loadProviderRules(null);
    expect(rules.of('contoso-com.mail.protection.outlook.com')?.checkHosts).toEqual(['microsoft.com']);
    expect(rules.of('gmail-smtp-in.l.google.com')?.checkHosts).toEqual(['gmail.com']);
  });
});

describe('foldsCase', () => {
  it('is set for the providers whose local parts are one mailbox in any case, and for no gateway', () => {
    const rules = new ProviderRules(parseProviderRules('data/provider-rules.json', BUILT_IN));
    for (const host of [
      'gmail-smtp-in.l.google.com',
      'aspmx.l.google.com',
      'aspmx2.googlemail.com',
      'example-com.mail.protection.outlook.com',
      'hotmail-com.olc.protection.outlook.com',
      'mta5.am0.yahoodns.net',
      'mx01.mail.icloud.com',
    ]) {
      expect(rules.of(host)?.foldsCase, host).toBe(true);
    }
    for (const host of ['mx1.corp.pphosted.com', 'mx.example.test']) expect(rules.of(host)?.foldsCase, host).toBeUndefined();
  });

  it('is true or false', () => {
    expect(failure('{"a.test": {"source": "x",\n"foldsCase": "yes"}}')).toMatchObject({ line: 2, field: '"a.test".foldsCase' });
  });
});
