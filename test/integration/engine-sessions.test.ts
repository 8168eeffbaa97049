// How many refused RCPTs one SMTP session asks (docs/architecture.md, "SMTP sessions"): as many as
// the host takes at full speed, and after the first slow reply or hang-up past the nine every
// host takes, no more than the host has shown it takes. Real SMTP servers on loopback with
// Postfix's error limits (smtpd_soft_error_limit, smtpd_error_sleep_time, smtpd_hard_error_limit).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVerifier } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { freePort, startSmtpServer, type SmtpFixture, type SmtpFixtureOptions } from '../support/smtp-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';

const HOST = '127.0.0.171';
/** Two domains at one host: refusals count per session, whichever domain they were for. */
const DOMAINS = ['refusals-a.test', 'refusals-b.test'];
/** None of these mailboxes exists: every RCPT is refused, the catch-all probes' too. */
const UNKNOWN = DOMAINS.flatMap((domain) => Array.from({ length: 20 }, (_, i) => `nobody${i}@${domain}`));
const REFUSALS = UNKNOWN.length + DOMAINS.length;

let dns: DnsFixture | undefined;
let server: SmtpFixture | undefined;

afterEach(async () => {
  await server?.close();
  await dns?.close();
  server = undefined;
  dns = undefined;
});

/** Verifies UNKNOWN one session at a time at a server with `options`; the verdicts. */
async function verifyAllUnknown(options: SmtpFixtureOptions): Promise<string[]> {
  const port = await freePort(HOST);
  server = await startSmtpServer({ host: HOST, port, ...options });
  dns = await startDnsServer(Object.assign({}, ...DOMAINS.map((domain) => mxZones(domain, { 'mx.refusals.test': HOST }))));
  const verifier = createVerifier(fixtureOptions(dns, port, { perHostConcurrency: 1, commandTimeoutMs: 5_000 }));
  const verdicts: string[] = [];
  await verifier.verifyMany(UNKNOWN, (result) => void verdicts.push(result.result));
  // A session's refusals are counted when it closes, which may come just after the last answer.
  await vi.waitFor(() => expect(server!.refusalsPerSession()).toHaveLength(server!.sessionCount()));
  return verdicts;
}

describe('refused RCPTs per session', () => {
  it('asks all 42 in one session where the host never slows down, both domains in it', async () => {
    const verdicts = await verifyAllUnknown({});
    expect(verdicts).toEqual(UNKNOWN.map(() => 'invalid'));
    expect(server!.sessionCount()).toBe(1);
    expect(server!.refusalsPerSession()).toEqual([REFUSALS]);
  });

  it('learns a Postfix-like soft limit from the one slow reply, and stops before it in every later session', async () => {
    const verdicts = await verifyAllUnknown({ errorLimits: { soft: 10, sleepMs: 600 } });
    expect(verdicts).toEqual(UNKNOWN.map(() => 'invalid'));
    const [first, ...later] = server!.refusalsPerSession();
    // The 11th RCPT's answer came slowly: it stands, and the session ends there.
    expect(first).toBe(11);
    expect(later.length).toBeGreaterThan(0);
    for (const refusals of later) expect(refusals).toBeLessThanOrEqual(9);
    expect(server!.refusalsPerSession().reduce((sum, n) => sum + n, 0)).toBe(REFUSALS);
  });

  it('learns a hard limit from the hang-up and asks the cut-off address again, losing no answer', async () => {
    const verdicts = await verifyAllUnknown({ errorLimits: { soft: Infinity, sleepMs: 0, hard: 15 } });
    expect(verdicts).toEqual(UNKNOWN.map(() => 'invalid'));
    const [first, ...later] = server!.refusalsPerSession();
    expect(first).toBe(15);
    for (const refusals of later) expect(refusals).toBeLessThanOrEqual(14);
    // The address whose RCPT got the 421 was asked again: each address's refusal counted once.
    expect(server!.refusalsPerSession().reduce((sum, n) => sum + n, 0)).toBe(REFUSALS);
    expect(server!.rcptCount()).toBe(REFUSALS + 1);
  });
});

describe('sessions at a busy host', () => {
  it('asks each domain in one session while other domains wait for the host, and every address once', async () => {
    const domains = Array.from({ length: 8 }, (_, i) => `busy${i}.test`);
    const emails = domains.flatMap((domain) => Array.from({ length: 20 }, (_, i) => `user${i}@${domain}`));
    const port = await freePort(HOST);
    server = await startSmtpServer({ host: HOST, port, mailboxes: emails, replyDelayMs: 5 });
    dns = await startDnsServer(Object.assign({}, ...domains.map((domain) => mxZones(domain, { 'mx.busy.test': HOST }))));
    const verifier = createVerifier(fixtureOptions(dns, port, { perHostConcurrency: 2 }));
    const verdicts: string[] = [];
    await verifier.verifyMany(emails, (result) => void verdicts.push(result.result));
    expect(verdicts).toEqual(emails.map(() => 'valid'));
    for (const email of emails) expect(server.rcptCount(email)).toBe(1);
    // Before, each domain took both slots in turn (16 sessions or more). Now a session done with one
    // domain goes on with the next one's addresses: the two slots' sessions ask all eight domains.
    expect(server.sessionCount()).toBeLessThanOrEqual(2);
  });

  it("does not carry one user's work in another's session (each share's slots are its own)", async () => {
    const emails = (share: string) => Array.from({ length: 10 }, (_, i) => `user${i}@${share}.test`);
    const port = await freePort(HOST);
    server = await startSmtpServer({ host: HOST, port, mailboxes: [...emails('alice'), ...emails('bob')], replyDelayMs: 5 });
    dns = await startDnsServer(Object.assign({}, ...['alice.test', 'bob.test'].map((domain) => mxZones(domain, { 'mx.busy.test': HOST }))));
    const verifier = createVerifier(fixtureOptions(dns, port, { perHostConcurrency: 1 }));
    const verdicts: string[] = [];
    const run = (share: string) => verifier.verifyMany(emails(share), (result) => void verdicts.push(result.result), { share });
    await Promise.all([run('alice'), run('bob')]);
    expect(verdicts).toEqual([...emails('alice'), ...emails('bob')].map(() => 'valid'));
    expect(server.sessionCount()).toBe(2);
  });

  it('answers every address right when the host cuts sessions that carry several domains', async () => {
    const domains = ['cut-a.test', 'cut-b.test', 'cut-c.test'];
    const emails = domains.flatMap((domain) => Array.from({ length: 10 }, (_, i) => `user${i}@${domain}`));
    const mailboxes = emails.filter((_, i) => i % 2 === 0);
    const port = await freePort(HOST);
    // Every session is cut without a word after its 7th RCPT, often in the middle of a domain it took over.
    server = await startSmtpServer({ host: HOST, port, mailboxes, dropAfterRcpts: 7 });
    dns = await startDnsServer(Object.assign({}, ...domains.map((domain) => mxZones(domain, { 'mx.busy.test': HOST }))));
    const verifier = createVerifier(fixtureOptions(dns, port, { perHostConcurrency: 1 }));
    const verdicts = new Map<string, string>();
    await verifier.verifyMany(emails, (result) => void verdicts.set(result.email, result.result));
    expect(Object.fromEntries(verdicts)).toEqual(Object.fromEntries(emails.map((email) => [email, mailboxes.includes(email) ? 'valid' : 'invalid'])));
    expect(server.sessionCount()).toBeGreaterThan(1);
  });
});
