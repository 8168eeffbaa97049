import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { testTempDir } from '../support/temp-dirs.js';
import { startSocksServer, type SocksFixture } from '../support/socks-server.js';

const MX_HOST = '127.0.13.20';
const SOURCE = '127.0.13.21';
/** A host that refuses one of our source addresses at the greeting, as a listed IP is refused. */
const GREETING_BLOCK_HOST = '127.0.13.25';
const REFUSED_SOURCE = '127.0.13.26';
/** A host that refuses every RCPT from one source address, postmaster's too, in words no reply row reads. */
const SENDER_REFUSAL_HOST = '127.0.13.27';
const UNREADABLE = 'Odmowa przyjecia wiadomosci';
/** A host every egress reaches through the proxy its provider rule names. */
const RULED_HOST = '127.0.13.28';
const RULED_DOMAINS = ['one.ruled-egress.test', 'two.ruled-egress.test'];
const MAILBOXES = ['alice@egress.test', 'bob@egress.test', 'carol@other-egress.test'];
const ADDRESSES = [...MAILBOXES, 'nobody@egress.test'];

let dns: DnsFixture;
let smtp: SmtpFixture;
let openProxy: SocksFixture;
let loginProxy: SocksFixture;
let greetingBlock: SmtpFixture;
let senderRefusal: SmtpFixture;
let ruled: SmtpFixture;
let rulesDir: string;

beforeAll(async () => {
  const port = await freePort([MX_HOST]);
  smtp = await startSmtpServer({ host: MX_HOST, port, mailboxes: MAILBOXES });
  ruled = await startSmtpServer({
    host: RULED_HOST,
    port,
    mailboxes: RULED_DOMAINS.flatMap((domain) => [1, 2, 3, 4, 5, 6].map((n) => `user${n}@${domain}`)),
    replyDelayMs: 30,
  });
  senderRefusal = await startSmtpServer({
    host: SENDER_REFUSAL_HOST,
    port,
    mailboxes: ['alice@sender-refusal.test', 'postmaster@sender-refusal.test'],
    unknownUserText: UNREADABLE,
    refuseFrom: { clients: [REFUSED_SOURCE], text: UNREADABLE },
  });
  greetingBlock = await startSmtpServer({ host: GREETING_BLOCK_HOST, port, mailboxes: ['alice@greeting-block.test'], blockGreetingFrom: [REFUSED_SOURCE] });
  dns = await startDnsServer(
    {
      ...mxZones('egress.test', { 'mx.egress.test': MX_HOST }),
      ...mxZones('other-egress.test', { 'mx.other-egress.test': MX_HOST }),
      ...mxZones('greeting-block.test', { 'mx.greeting-block.test': GREETING_BLOCK_HOST }),
      ...mxZones('sender-refusal.test', { 'mx.sender-refusal.test': SENDER_REFUSAL_HOST }),
      ...Object.assign({}, ...RULED_DOMAINS.map((domain) => mxZones(domain, { 'mx.ruled-egress.test': RULED_HOST }))),
    },
    { host: '127.0.13.22' },
  );
  openProxy = await startSocksServer({ host: '127.0.13.23' });
  loginProxy = await startSocksServer({ host: '127.0.13.24', credentials: { username: 'probe', password: 's3cret:@pass' } });
});

afterAll(async () => {
  if (rulesDir) rmSync(rulesDir, { recursive: true, force: true });
  await Promise.all([smtp?.close(), greetingBlock?.close(), senderRefusal?.close(), ruled?.close(), dns?.close(), openProxy?.close(), loginProxy?.close()]);
});

async function verdicts(verifier: ReturnType<typeof createVerifier>): Promise<Map<string, { result: string; reason: string; reasonCode: string }>> {
  const results = new Map<string, { result: string; reason: string; reasonCode: string }>();
  await verifier.verifyMany(ADDRESSES, (result) => {
    results.set(result.email, result);
  });
  return results;
}

const EXPECTED = { 'alice@egress.test': 'valid', 'bob@egress.test': 'valid', 'carol@other-egress.test': 'valid', 'nobody@egress.test': 'invalid' };

describe('SMTP through a SOCKS5 proxy', () => {
  it.each([
    ['without credentials', () => openProxy],
    ['with a username and password', () => loginProxy],
  ])('%s: every SMTP connection goes through it, to the address we resolved', async (_, proxyOf) => {
    const proxy = proxyOf();
    smtp.reset();
    proxy.relayed.length = 0;
    const results = await verdicts(createVerifier(fixtureOptions(dns, smtp.port, { proxies: [proxy.url] })));
    expect(Object.fromEntries([...results].map(([email, result]) => [email, result.result]))).toEqual(EXPECTED);
    expect(smtp.sessionCount()).toBeGreaterThan(0);
    // Every connection the SMTP server saw came from the proxy, asked for by address, never by name.
    expect(proxy.relayed).toHaveLength(smtp.sessionCount());
    expect(new Set(proxy.relayed)).toEqual(new Set([`${MX_HOST}:${smtp.port}`]));
  });

  it('gives unknown with a reason naming the proxy (and never the password) when it refuses our login', async () => {
    smtp.reset();
    const wrong = loginProxy.url.replace(encodeURIComponent('s3cret:@pass'), 'wrong');
    const results = await verdicts(createVerifier(fixtureOptions(dns, smtp.port, { proxies: [wrong] })));
    expect(results.size).toBe(ADDRESSES.length);
    for (const result of results.values()) {
      expect(result.result).toBe('unknown');
      expect(result.reason).toContain(`SOCKS5 proxy ${loginProxy.host}:${loginProxy.port}`);
      expect(result.reason).toMatch(/authentication/i);
      expect(result.reason).not.toContain('wrong');
      expect(result.reasonCode).toBe('proxy_failed');
    }
    expect(loginProxy.refusedLogins()).toBeGreaterThan(0);
    expect(smtp.sessionCount()).toBe(0);
  });

  it('keeps the private-network guard: a domain whose MX is on loopback is not contacted through the proxy either', async () => {
    openProxy.relayed.length = 0;
    const guarded = createVerifier({ ...fixtureOptions(dns, smtp.port, { proxies: [openProxy.url] }), allowPrivateNetworks: false });
    const result = await guarded.verify('alice@egress.test');
    expect(result.result).toBe('unknown');
    expect(result.reason).toMatch(/private network/);
    expect(result.reasonCode).toBe('mail_host_unusable');
    expect(openProxy.relayed).toEqual([]);
  });
});

describe('--source-address', () => {
  it('makes every SMTP connection from the given address', async () => {
    smtp.reset();
    const results = await verdicts(createVerifier(fixtureOptions(dns, smtp.port, { sourceAddresses: [SOURCE] })));
    expect(results.get('alice@egress.test')?.result).toBe('valid');
    expect(smtp.clientAddresses().length).toBeGreaterThan(0);
    expect(new Set(smtp.clientAddresses())).toEqual(new Set([SOURCE]));
  });

  it('is used for the connection to the proxy when both are set', async () => {
    openProxy.clients.length = 0;
    openProxy.relayed.length = 0;
    const results = await verdicts(createVerifier(fixtureOptions(dns, smtp.port, { proxies: [openProxy.url], sourceAddresses: [SOURCE] })));
    expect(results.get('alice@egress.test')?.result).toBe('valid');
    expect(openProxy.relayed.length).toBeGreaterThan(0);
    expect(new Set(openProxy.clients)).toEqual(new Set([SOURCE]));
  });
});

describe('a pool of source addresses', () => {
  it('asks through another egress when a host refuses one at the greeting, and benches that one there', async () => {
    greetingBlock.reset();
    const verifier = createVerifier(fixtureOptions(dns, smtp.port, { sourceAddresses: [REFUSED_SOURCE, SOURCE] }));
    const addresses = ['alice@greeting-block.test', 'nobody@greeting-block.test'];
    const first = new Map<string, string>();
    await verifier.verifyMany(addresses, (result) => void first.set(result.email, result.result));
    expect(Object.fromEntries(first)).toEqual({ 'alice@greeting-block.test': 'valid', 'nobody@greeting-block.test': 'invalid' });
    expect(greetingBlock.clientAddresses()).toContain(REFUSED_SOURCE);
    greetingBlock.reset();
    expect((await verifier.verify('alice@greeting-block.test')).result).toBe('valid');
    expect(new Set(greetingBlock.clientAddresses())).toEqual(new Set([SOURCE]));
  });

  it('benches an egress the postmaster control finds refused, and asks the other its own control', async () => {
    senderRefusal.reset();
    const verifier = createVerifier(fixtureOptions(dns, smtp.port, { sourceAddresses: [REFUSED_SOURCE, SOURCE] }));
    const results = new Map<string, string>();
    await verifier.verifyMany(
      ['alice@sender-refusal.test', 'nobody@sender-refusal.test'],
      (result) => void results.set(result.email, `${result.result} ${result.reasonCode}`),
    );
    // The refused egress's "postmaster refused too" is about it: the other egress finds postmaster taken, so nobody is invalid.
    expect(Object.fromEntries(results)).toEqual({ 'alice@sender-refusal.test': 'valid accepted', 'nobody@sender-refusal.test': 'invalid unreadable_refusal' });
    expect(senderRefusal.clientAddresses()).toContain(REFUSED_SOURCE);
    expect(senderRefusal.rcptCount('postmaster@sender-refusal.test')).toBe(2);
  });

  it("benches an egress a host refused for that domain only, not at its provider while the provider's check hosts say nothing", async () => {
    greetingBlock.reset();
    smtp.reset();
    // Two tenants of one provider rule; its check domain does not resolve, so nothing confirms a bench of the provider.
    const zones = {
      ...mxZones('tenant-a.test', { 'tenant-a.gw-egress.test': GREETING_BLOCK_HOST }),
      ...mxZones('tenant-b.test', { 'tenant-b.gw-egress.test': MX_HOST }),
    };
    for (const [name, behaviour] of Object.entries(zones)) dns.set(name, behaviour);
    const providerRulesFile = join(testTempDir('tenant-rules'), 'rules.json');
    writeFileSync(providerRulesFile, JSON.stringify({ 'gw-egress.test': { checkHosts: ['gw-own.test'], source: 'test' } }));
    const verifier = createVerifier(fixtureOptions(dns, smtp.port, { sourceAddresses: [REFUSED_SOURCE, SOURCE], providerRulesFile }));
    await verifier.verify('alice@tenant-a.test');
    expect(greetingBlock.clientAddresses()).toContain(REFUSED_SOURCE);
    // The refused egress is still the first choice (the pool's order) for the other tenant.
    expect((await verifier.verify('alice@tenant-b.test')).reasonCode).toBe('mailbox_not_found');
    expect(smtp.clientAddresses()[0]).toBe(REFUSED_SOURCE);
    greetingBlock.reset();
    await verifier.verify('bob@tenant-a.test');
    expect(greetingBlock.clientAddresses()).toEqual([SOURCE]);
  });

  it('is one egress at a host whose provider rule names a proxy: the proxy, with one session budget there', async () => {
    ruled.reset();
    openProxy.relayed.length = 0;
    rulesDir = mkdtempSync(join(tmpdir(), 'mailverify-ruled-egress-'));
    const providerRulesFile = join(rulesDir, 'rules.json');
    writeFileSync(providerRulesFile, JSON.stringify({ 'mx.ruled-egress.test': { proxy: openProxy.url, source: 'test' } }));
    const verifier = createVerifier(fixtureOptions(dns, smtp.port, { sourceAddresses: [SOURCE, REFUSED_SOURCE], providerRulesFile, perHostConcurrency: 1 }));
    const emails = RULED_DOMAINS.flatMap((domain) => [1, 2, 3, 4, 5, 6].map((n) => `user${n}@${domain}`));
    const results: string[] = [];
    await verifier.verifyMany(emails, (result) => void results.push(result.result));
    expect(results).toEqual(emails.map(() => 'valid'));
    expect(openProxy.relayed.length).toBe(ruled.sessionCount());
    // Two domains at the host, one session budget: never two sessions there at once.
    expect(ruled.peakSessions()).toBe(1);
  });
});
