// Every verdict path of docs/architecture.md "The engine" against real DNS, SMTP and HTTP servers on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, NOTHING_CHECKED, type EngineOptions, type Verifier } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { startHttpServer, type HttpFixture } from '../support/http-server.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';

const MAILBOX_HOST = '127.0.0.101';
const IMPLICIT_HOST = '127.0.0.102';
const CATCH_ALL_HOST = '127.0.0.103';
const IP_LISTED_HOST = '127.0.0.104';
const BLOCKING_HOST = '127.0.0.105';
const DNSBL_ZONE = 'bl.test';

let dns: DnsFixture;
let web: HttpFixture;
const smtp: SmtpFixture[] = [];
let options: Partial<EngineOptions>;

function verifier(overrides: Partial<EngineOptions> = {}): Verifier {
  return createVerifier({ ...options, ...overrides });
}

beforeAll(async () => {
  const port = await freePort([MAILBOX_HOST, IMPLICIT_HOST, CATCH_ALL_HOST, IP_LISTED_HOST, BLOCKING_HOST]);
  smtp.push(
    await startSmtpServer({
      host: MAILBOX_HOST,
      port,
      mailboxes: [
        'alice@valid.test',
        'admin@valid.test',
        'user@mailinator.com',
        'x@listed.test',
        'x@errorlisted.test',
        'x@refusedlisted.test',
        'someone@gmail.com',
        'ceo@workspace.test',
      ],
    }),
    await startSmtpServer({ host: IMPLICIT_HOST, port, mailboxes: ['bob@implicit.test'] }),
    await startSmtpServer({ host: CATCH_ALL_HOST, port, catchAll: true }),
    await startSmtpServer({ host: IP_LISTED_HOST, port, mailboxes: ['x@iplisted.test'] }),
    await startSmtpServer({ host: BLOCKING_HOST, port, block: true }),
  );
  web = await startHttpServer({ host: MAILBOX_HOST });
  dns = await startDnsServer({
    // An A record beside the MX: the web check's target.
    'valid.test': {
      records: [
        { type: 'MX', exchange: 'mx.valid.test', priority: 10 },
        { type: 'A', address: MAILBOX_HOST },
      ],
    },
    'mx.valid.test': { records: [{ type: 'A', address: MAILBOX_HOST }] },
    'implicit.test': { records: [{ type: 'A', address: IMPLICIT_HOST }] },
    'nullmx.test': { records: [{ type: 'MX', exchange: '', priority: 0 }] },
    'nohost.test': { records: [{ type: 'TXT', data: 'v=spf1 -all' }] },
    'servfail.test': { rcode: 'SERVFAIL' },
    'brokenmx.test': { records: [{ type: 'MX', exchange: 'servfail.test', priority: 10 }] },
    'silent.test': { drop: true },
    ...mxZones('catchall.test', { 'mx.catchall.test': CATCH_ALL_HOST }),
    ...mxZones('mailinator.com', { 'mx.mailinator.com': MAILBOX_HOST }),
    ...mxZones('listed.test', { 'mx.listed.test': MAILBOX_HOST }),
    ...mxZones('errorlisted.test', { 'mx.errorlisted.test': MAILBOX_HOST }),
    ...mxZones('refusedlisted.test', { 'mx.refusedlisted.test': MAILBOX_HOST }),
    ...mxZones('iplisted.test', { 'mx.iplisted.test': IP_LISTED_HOST }),
    ...mxZones('gmail.com', { 'gmail-smtp-in.fixture.test': MAILBOX_HOST }),
    ...mxZones('workspace.test', { 'aspmx.l.google.com': MAILBOX_HOST }),
    ...mxZones('blocked.test', { 'mx.blocked.test': BLOCKING_HOST }),
    [`listed.test.${DNSBL_ZONE}`]: { records: [{ type: 'A', address: '127.0.1.2' }] },
    [`104.0.0.127.${DNSBL_ZONE}`]: { records: [{ type: 'A', address: '127.0.0.4' }] },
    // Spamhaus's "you asked through a public resolver": an error, not a listing.
    [`errorlisted.test.${DNSBL_ZONE}`]: { records: [{ type: 'A', address: '127.255.255.254' }] },
    // Several lists answer 127.0.0.1 for "query refused": not a listing either.
    [`refusedlisted.test.${DNSBL_ZONE}`]: { records: [{ type: 'A', address: '127.0.0.1' }] },
  });
  options = fixtureOptions(dns, port, { dnsblZones: [DNSBL_ZONE], dnsTimeoutMs: 500 });
});

afterAll(async () => {
  await Promise.all([...smtp.map((server) => server.close()), web?.close(), dns?.close()]);
});

describe('the engine on loopback fixtures', () => {
  it('finds an existing mailbox valid, quoting the 250 reply', async () => {
    const result = await verifier().verify('alice@valid.test');
    expect(result).toMatchObject({ email: 'alice@valid.test', result: 'valid' });
    expect(result.reason).toMatch(/^accepted by the recipient's server: 250 2\.1\.5 /);
    expect(result.checks).toEqual({ ...NOTHING_CHECKED, format: true, domainExists: true, hasMx: true, smtpStatus: 'valid' });
    expect(result.reasonCode).toBe('accepted');
    // The fixtures turn the web check off: its false is no finding.
    expect(result.notEstablished).toEqual(['domainReachable']);
  });

  it('finds an unknown mailbox invalid, saying so and quoting the 550 5.1.1 reply', async () => {
    const result = await verifier().verify('nobody@valid.test');
    expect(result.result).toBe('invalid');
    expect(result.checks.smtpStatus).toBe('invalid');
    expect(result.reason).toBe('mailbox does not exist: 550 5.1.1 <nobody@valid.test>: Recipient address rejected: User unknown');
    expect(result.reasonCode).toBe('mailbox_not_found');
  });

  it('finds a malformed address invalid without asking anyone', async () => {
    const result = await verifier().verify('  two@@valid.test ');
    expect(result.email).toBe('two@@valid.test');
    expect(result.result).toBe('invalid');
    expect(result.checks.format).toBe(false);
    expect(result.reason).toMatch(/^invalid address: /);
    expect(result.reasonCode).toBe('syntax');
    expect(result.notEstablished).toEqual([
      'domainExists',
      'hasMx',
      'domainReachable',
      'isDisposable',
      'isRole',
      'isBlacklisted',
      'isKnownProvider',
      'isCatchAll',
    ]);
  });

  it('leaves an address literal unknown: format-valid, never probed', async () => {
    const result = await verifier().verify('alice@[127.0.0.101]');
    expect(result).toMatchObject({ result: 'unknown', reason: 'address literals are not probed' });
    expect(result.checks.format).toBe(true);
    expect(result.reasonCode).toBe('address_literal');
    expect(result.notEstablished).toContain('domainExists');
  });

  it('finds a domain that does not exist (NXDOMAIN) invalid', async () => {
    const result = await verifier().verify('someone@nx.test');
    expect(result).toMatchObject({ result: 'invalid', reason: 'the domain does not exist (NXDOMAIN)' });
    expect(result.checks).toMatchObject({ domainExists: false, hasMx: false, smtpStatus: 'unknown' });
    expect(result.reasonCode).toBe('domain_not_found');
    // NXDOMAIN is a finding: domainExists and hasMx are false, not blank.
    expect(result.notEstablished).not.toContain('domainExists');
    expect(result.notEstablished).not.toContain('hasMx');
  });

  it('probes the A record of a domain without MX as its implicit MX', async () => {
    const implicit = smtp[1]!;
    const before = implicit.sessionCount();
    const result = await verifier().verify('bob@implicit.test');
    expect(result).toMatchObject({ result: 'valid' });
    expect(result.reason).toMatch(/^accepted by the recipient's server: 250 /);
    expect(result.checks).toMatchObject({ domainExists: true, hasMx: false, smtpStatus: 'valid' });
    expect(result.reasonCode).toBe('accepted');
    expect(implicit.sessionCount()).toBeGreaterThan(before);
  });

  it('finds a null MX domain invalid', async () => {
    const result = await verifier().verify('someone@nullmx.test');
    expect(result).toMatchObject({ result: 'invalid', reason: 'the domain accepts no mail (null MX, RFC 7505)' });
    expect(result.reasonCode).toBe('no_mail_host');
    expect(result.checks).toMatchObject({ domainExists: true, hasMx: false });
  });

  it('finds a domain with neither MX nor A/AAAA invalid', async () => {
    const result = await verifier().verify('someone@nohost.test');
    expect(result).toMatchObject({ result: 'invalid', reason: 'the domain has neither MX nor A/AAAA records' });
    expect(result.reasonCode).toBe('no_mail_host');
  });

  it('leaves SERVFAIL unknown, never invalid', async () => {
    const result = await verifier().verify('someone@servfail.test');
    expect(result).toMatchObject({ result: 'unknown', reason: 'DNS SERVFAIL' });
    expect(result.reasonCode).toBe('dns_failure');
    // The contract's booleans stay false in JSON; CSV and the dashboard leave them blank.
    expect(result.checks).toMatchObject({ domainExists: false, hasMx: false });
    expect(result.notEstablished).toEqual(expect.arrayContaining(['domainExists', 'hasMx', 'isKnownProvider', 'isCatchAll']));
  });

  it('leaves a domain whose MX host cannot be resolved (SERVFAIL) unknown, naming the host', async () => {
    const result = await verifier().verify('someone@brokenmx.test');
    expect(result).toMatchObject({ result: 'unknown', reason: 'the mail hosts have no address (servfail.test: DNS SERVFAIL)' });
    expect(result.reasonCode).toBe('mail_host_unusable');
    expect(result.checks).toMatchObject({ domainExists: true, hasMx: true, smtpStatus: 'unknown' });
  });

  it('leaves a DNS timeout unknown, within the DNS budget', async () => {
    const started = Date.now();
    const result = await verifier().verify('someone@silent.test');
    expect(result).toMatchObject({ result: 'unknown', reason: 'DNS timeout' });
    expect(result.reasonCode).toBe('dns_failure');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('finds any address at a catch-all domain catch_all', async () => {
    const result = await verifier().verify('whoever@catchall.test');
    expect(result.result).toBe('catch_all');
    expect(result.checks).toMatchObject({ isCatchAll: true, smtpStatus: 'valid' });
    expect(result.reason).toMatch(/^catch-all domain: [a-z0-9]{20}@catchall\.test got accepted by the recipient's server: 250/);
    expect(result.reasonCode).toBe('catch_all');
  });

  it('finds a disposable address risky', async () => {
    const result = await verifier().verify('user@mailinator.com');
    expect(result).toMatchObject({ result: 'risky', reason: 'disposable email domain' });
    expect(result.reasonCode).toBe('disposable');
    expect(result.checks).toMatchObject({ isDisposable: true, smtpStatus: 'valid' });
  });

  it('finds a role address risky', async () => {
    const result = await verifier().verify('admin@valid.test');
    expect(result).toMatchObject({ result: 'risky', reason: 'role address' });
    expect(result.reasonCode).toBe('role');
    expect(result.checks.isRole).toBe(true);
  });

  it('finds a domain listed on a DNSBL risky', async () => {
    const result = await verifier().verify('x@listed.test');
    expect(result).toMatchObject({ result: 'risky', reason: `blacklisted: listed.test in ${DNSBL_ZONE}` });
    expect(result.reasonCode).toBe('blacklisted');
    expect(result.checks.isBlacklisted).toBe(true);
  });

  it('finds a domain whose MX address is listed risky', async () => {
    const result = await verifier().verify('x@iplisted.test');
    expect(result).toMatchObject({ result: 'risky', reason: `blacklisted: ${IP_LISTED_HOST} in ${DNSBL_ZONE}` });
  });

  it('does not take a DNSBL error answer (127.255.255.x, 127.0.0.1) for a listing', async () => {
    for (const email of ['x@errorlisted.test', 'x@refusedlisted.test']) {
      const result = await verifier().verify(email);
      expect(result.result, email).toBe('valid');
      expect(result.checks.isBlacklisted, email).toBe(false);
    }
  });

  it('knows a provider by its domain and by its MX host', async () => {
    const byDomain = await verifier().verify('someone@gmail.com');
    expect(byDomain.checks.isKnownProvider).toBe(true);
    expect(byDomain.result).toBe('valid');
    const byMx = await verifier().verify('ceo@workspace.test');
    expect(byMx.checks.isKnownProvider).toBe(true);
    expect(byMx.result).toBe('valid');
  });

  it("says a verdict may stand for the address in any case only where the MX host's provider rule folds case", async () => {
    expect((await verifier().verify('CEO@workspace.test')).foldsCase).toBe(true);
    // Rules go by the MX host, not the domain: this gmail.com's MX is a fixture of no provider.
    expect((await verifier().verify('someone@gmail.com')).foldsCase).toBeUndefined();
    expect((await verifier().verify('alice@valid.test')).foldsCase).toBeUndefined();
  });

  it('leaves a 554 5.7.1 block unknown, not invalid, quoting the reply', async () => {
    const result = await verifier().verify('someone@blocked.test');
    expect(result.result).toBe('unknown');
    expect(result.checks.smtpStatus).toBe('unknown');
    expect(result.reason).toBe('our IP is blocked: 554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org');
    expect(result.reasonCode).toBe('ip_blocked');
    expect(result.notEstablished).toContain('isCatchAll');
  });

  it('finds the domain reachable when its web server answers, and not when nothing listens', async () => {
    const withWeb = verifier({ webCheck: true, webPorts: [web.port] });
    const [reachable, unreachable] = await Promise.all([withWeb.verify('alice@valid.test'), withWeb.verify('bob@implicit.test')]);
    expect(reachable.checks.domainReachable).toBe(true);
    expect(reachable.notEstablished ?? []).not.toContain('domainReachable');
    expect(web.requestCount()).toBeGreaterThan(0);
    expect(unreachable.checks.domainReachable).toBe(false);
  });

  it('asks no web server when the web check is off', async () => {
    const before = web.requestCount();
    const result = await verifier({ webCheck: false, webPorts: [web.port] }).verify('alice@valid.test');
    expect(result.checks.domainReachable).toBe(false);
    expect(result.notEstablished).toContain('domainReachable');
    expect(web.requestCount()).toBe(before);
  });

  it('asks no web server on a private network unless allowed', async () => {
    const before = web.requestCount();
    const result = await verifier({ webCheck: true, webPorts: [web.port], allowPrivateNetworks: false }).verify('alice@valid.test');
    expect(result.checks.domainReachable).toBe(false);
    expect(web.requestCount()).toBe(before);
  });
});
