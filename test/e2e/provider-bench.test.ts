/**
 * Benches no customer can trip, on `mailverify serve` of the built CLI (`npm run build` first) on
 * each store, with two source addresses, against real SMTP fixtures on loopback behind one provider
 * rule's suffix (`gateway.test`, as `mail.protection.outlook.com` is Microsoft's): one account's
 * domain there refuses every egress with block words. Another account's domain at the same
 * provider is still asked; the provider is benched as a whole only once its own check host
 * (the MX of a domain its rule names in `checkHosts`) refuses the egresses too, and then what the
 * bench decides unasked is charged to nobody.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { call, verifyFresh } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';
import { testTempDir } from '../support/temp-dirs.js';

const EGRESSES = ['127.0.47.1', '127.0.47.2'];
const ATTACKER_HOST = '127.0.47.10';
const VICTIM_HOST = '127.0.47.11';
const CHECK_HOST_TAKING = '127.0.47.12';
const CHECK_HOST_REFUSING = '127.0.47.13';
/** The provider's own domains: the MX of one takes its postmaster from us, the other's refuses us as blocklisted. */
const TAKING_CHECK_DOMAIN = 'gateway-own.test';
const REFUSING_CHECK_DOMAIN = 'gateway-corp.test';
const ATTACKS = ['one@evil.test', 'two@evil.test'];
const VICTIM = 'alice@victim.test';
const BENCHED = 'unknown egress_benched';

let dns: DnsFixture;
let attacker: SmtpFixture;
let victim: SmtpFixture;
let checkTaking: SmtpFixture;
let checkRefusing: SmtpFixture;
let port: number;
const running: RunningService[] = [];
let place: StoreFixture | undefined;

beforeAll(async () => {
  port = await freePort([ATTACKER_HOST, VICTIM_HOST, CHECK_HOST_TAKING, CHECK_HOST_REFUSING]);
  // The attacker's tenant refuses every RCPT with Spamhaus's words, whichever egress asks.
  attacker = await startSmtpServer({ host: ATTACKER_HOST, port, block: true });
  victim = await startSmtpServer({ host: VICTIM_HOST, port, mailboxes: [VICTIM] });
  checkTaking = await startSmtpServer({ host: CHECK_HOST_TAKING, port, mailboxes: [`postmaster@${TAKING_CHECK_DOMAIN}`] });
  checkRefusing = await startSmtpServer({ host: CHECK_HOST_REFUSING, port, block: true });
  dns = await startDnsServer(
    {
      ...mxZones('evil.test', { 'evil-test.gateway.test': ATTACKER_HOST }),
      ...mxZones('victim.test', { 'victim-test.gateway.test': VICTIM_HOST }),
      ...mxZones(TAKING_CHECK_DOMAIN, { 'own.gateway.test': CHECK_HOST_TAKING }),
      ...mxZones(REFUSING_CHECK_DOMAIN, { 'corp.gateway.test': CHECK_HOST_REFUSING }),
    },
    { host: '127.0.47.20' },
  );
});

afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
  await place?.close();
  place = undefined;
  for (const fixture of [attacker, victim, checkTaking, checkRefusing]) fixture.reset();
});

afterAll(async () => {
  await Promise.all([attacker?.close(), victim?.close(), checkTaking?.close(), checkRefusing?.close(), dns?.close()]);
});

/** The service on a fresh store of `kind`, its one provider rule naming `checkDomain` as the provider's own. */
async function serve(kind: (typeof STORE_KINDS)[number], checkDomain: string): Promise<RunningService> {
  const rules = join(testTempDir('provider-rules'), 'rules.json');
  writeFileSync(rules, JSON.stringify({ 'gateway.test': { checkHosts: [checkDomain], source: 'test' } }));
  place = await kind.create();
  const engineArgs = ['--dns-server', dns.server, '--smtp-port', String(port), '--helo', 'probe.test', '--retry-schedule', 'none', '--provider-rules', rules];
  for (const egress of EGRESSES) engineArgs.push('--source-address', egress);
  const service = await startService({ dataDir: place.location.dataDir, databaseUrl: place.location.databaseUrl, engineArgs });
  running.push(service);
  return service;
}

/** Each address's verdict and reason code, asked afresh. */
async function verdicts(service: RunningService, token: string, emails: string[]): Promise<Record<string, string>> {
  const results = await verifyFresh(service.baseUrl, token, emails);
  return Object.fromEntries(results.map((result) => [result.email, `${result.result} ${result.reasonCode}`]));
}

const balanceOf = async (service: RunningService, token: string) => (await call(service.baseUrl, 'GET', '/v1/account', { token })).body.balance;

/** Waits until the store holds what `ready` looks for among the benches in force. */
async function benchesUntil(ready: (rows: Array<{ egress: string; provider: string }>) => boolean): Promise<Array<{ egress: string; provider: string }>> {
  for (const deadline = Date.now() + 20_000; ;) {
    const rows = await place!.query<{ egress: string; provider: string }>('SELECT egress, provider FROM egress_benches ORDER BY provider, egress');
    if (ready(rows) || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until each egress has asked the check host for its domain's postmaster: the provider's confirmations are in. */
async function checkHostAsked(fixture: SmtpFixture, checkDomain: string): Promise<void> {
  const asked = () => fixture.rcptCount(`postmaster@${checkDomain}`);
  for (const deadline = Date.now() + 20_000; asked() < EGRESSES.length && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(asked()).toBe(EGRESSES.length);
  expect(fixture.clientAddresses()).toEqual(expect.arrayContaining(EGRESSES));
}

describe.each(STORE_KINDS)("on $name: one account's domain at a provider refuses every egress with block words", (kind) => {
  it("another account's domain at that provider is still asked while the provider's check host takes us", { timeout: 60_000 }, async () => {
    const service = await serve(kind, TAKING_CHECK_DOMAIN);
    const mallory = await service.createUser('mallory@example.test', { credits: 10, rateLimit: 1_000 });
    const alice = await service.createUser('alice@example.test', { credits: 10, rateLimit: 1_000 });

    expect(await verdicts(service, mallory, ATTACKS)).toEqual(Object.fromEntries(ATTACKS.map((email) => [email, BENCHED])));
    expect(attacker.clientAddresses()).toEqual(expect.arrayContaining(EGRESSES));
    await checkHostAsked(checkTaking, TAKING_CHECK_DOMAIN);
    // Benched for the attacker's domain alone: the check host took our postmaster question.
    expect(await benchesUntil((rows) => rows.length >= EGRESSES.length)).toEqual(EGRESSES.map((egress) => ({ egress, provider: 'evil.test' })));

    expect(await verdicts(service, alice, [VICTIM])).toEqual({ [VICTIM]: 'valid accepted' });
    expect(victim.rcptCount(VICTIM)).toBe(1);
    expect(await balanceOf(service, mallory)).toBe(10);
    expect(await balanceOf(service, alice)).toBe(9);
  });

  it('the provider is benched once its own check host refuses us too, and what that decides unasked is charged to nobody', { timeout: 60_000 }, async () => {
    const service = await serve(kind, REFUSING_CHECK_DOMAIN);
    const mallory = await service.createUser('mallory@example.test', { credits: 10, rateLimit: 1_000 });
    const alice = await service.createUser('alice@example.test', { credits: 10, rateLimit: 1_000 });

    expect(await verdicts(service, mallory, ATTACKS)).toEqual(Object.fromEntries(ATTACKS.map((email) => [email, BENCHED])));
    await checkHostAsked(checkRefusing, REFUSING_CHECK_DOMAIN);
    const wholeProvider = (rows: Array<{ provider: string }>) => rows.filter((row) => row.provider === '*.gateway.test').length === EGRESSES.length;
    expect(wholeProvider(await benchesUntil(wholeProvider))).toBe(true);

    expect(await verdicts(service, alice, [VICTIM])).toEqual({ [VICTIM]: BENCHED });
    expect(victim.sessionCount()).toBe(0);
    expect(await balanceOf(service, mallory)).toBe(10);
    expect(await balanceOf(service, alice)).toBe(10);
  });
});
