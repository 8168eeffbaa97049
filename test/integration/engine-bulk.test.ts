// verifyMany over 1,000 addresses at 10 domains: grouped by domain, DNS and catch-all asked once
// per domain, many RCPTs per session, greylisted addresses answered at once as temporary (the job
// runner asks them again later: test/integration/job-runner.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type VerificationResult } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture, type ZoneBehaviour } from '../support/dns-server.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';

const DOMAINS = Array.from({ length: 10 }, (_, i) => `bulk${i}.test`);
const CATCH_ALL_DOMAIN = 'bulk9.test';
/** Two domains per MX host, so hosts are shared as they are in the wild; the catch-all one alone. */
const hostOf = (domainIndex: number): string => (DOMAINS[domainIndex] === CATCH_ALL_DOMAIN ? '127.0.0.126' : `127.0.0.${121 + Math.floor(domainIndex / 2)}`);
const GREYLISTED_DOMAIN = 'bulk8.test';
const PER_DOMAIN = 100;

let dns: DnsFixture;
let port: number;
const servers: SmtpFixture[] = [];

/** user0..user69 exist, user70..user99 do not; every address at the catch-all domain is accepted. */
const exists = (local: string): boolean => Number(local.slice(4)) < 70;
const expected = (email: string): string => {
  const [local = '', domain] = email.split('@');
  if (domain === CATCH_ALL_DOMAIN) return 'catch_all';
  if (domain === GREYLISTED_DOMAIN) return 'unknown';
  return exists(local) ? 'valid' : 'invalid';
};
const emails = DOMAINS.flatMap((domain) => Array.from({ length: PER_DOMAIN }, (_, i) => `user${i}@${domain}`));

beforeAll(async () => {
  const hosts = [...new Set(DOMAINS.map((_, i) => hostOf(i)))];
  port = await freePort(hosts);
  for (const host of hosts) {
    const mine = DOMAINS.filter((_, i) => hostOf(i) === host);
    const mailboxes = emails.filter((email) => mine.includes(email.split('@')[1]!) && exists(email.split('@')[0]!));
    const greylisted = emails.filter((email) => email.endsWith(`@${GREYLISTED_DOMAIN}`) && mine.includes(GREYLISTED_DOMAIN));
    servers.push(
      await startSmtpServer({
        host,
        port,
        mailboxes,
        catchAll: mine.includes(CATCH_ALL_DOMAIN),
        ...(greylisted.length > 0 ? { greylist: { times: 1, addresses: greylisted } } : {}),
      }),
    );
  }
  const zones: Record<string, ZoneBehaviour> = {};
  DOMAINS.forEach((domain, i) => Object.assign(zones, mxZones(domain, { [`mx.${domain}`]: hostOf(i) })));
  dns = await startDnsServer(zones);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await dns?.close();
});

describe('verifyMany', () => {
  it('verifies 1,000 addresses at 10 domains with one MX lookup and one catch-all probe per domain', async () => {
    const verifier = createVerifier(fixtureOptions(dns, port, { concurrency: 20, perHostConcurrency: 4 }));
    const results: VerificationResult[] = [];
    await verifier.verifyMany(emails, (result) => {
      results.push(result);
    });

    expect(results).toHaveLength(emails.length);
    const wrong = results.filter((result) => result.result !== expected(result.email)).map((r) => `${r.email}: ${r.result} (${r.reason})`);
    expect(wrong).toEqual([]);
    expect(results.filter((result) => result.reason.trim() === '')).toEqual([]);
    expect(new Set(results.map((result) => result.email)).size).toBe(emails.length);

    expect(dns.queryCount(undefined, 'MX')).toBeLessThanOrEqual(DOMAINS.length);
    const asked = new Set(emails);
    const probes = servers
      .flatMap((server) => server.commands)
      .map((command) => /^RCPT TO:<([^>]+)>/.exec(command)?.[1])
      .filter((address): address is string => address !== undefined && !asked.has(address));
    expect(probes.length).toBeLessThanOrEqual(DOMAINS.length);
    expect(new Set(probes.map((address) => address.split('@')[1])).size).toBe(probes.length);

    const sessions = servers.reduce((sum, server) => sum + server.sessionCount(), 0);
    expect(sessions).toBeLessThan(emails.length / 10);
    // The catch-all domain's addresses need no RCPT of their own once the probe says "any".
    const catchAllRcpts = servers.reduce(
      (sum, server) => sum + emails.filter((e) => e.endsWith(CATCH_ALL_DOMAIN)).reduce((n, e) => n + server.rcptCount(e), 0),
      0,
    );
    expect(catchAllRcpts).toBe(0);
  });

  it('answers a greylisted address at once as temporary, asking it once, and never holds other domains back', async () => {
    const greylisting = servers.find((server) => server.host === hostOf(DOMAINS.indexOf(GREYLISTED_DOMAIN)))!;
    greylisting.reset(); // greylisted afresh: the first RCPT of each address gets 450 again
    const greylisted = [`user1@${GREYLISTED_DOMAIN}`, `user2@${GREYLISTED_DOMAIN}`];
    const others = ['user1@bulk3.test', 'user80@bulk4.test', `user5@${CATCH_ALL_DOMAIN}`];
    const results: VerificationResult[] = [];
    await createVerifier(fixtureOptions(dns, port)).verifyMany([...greylisted, ...others], (result) => {
      results.push(result);
    });

    const byEmail = new Map(results.map((result) => [result.email, result]));
    for (const email of others) expect(byEmail.get(email)?.result, email).toBe(expected(email));
    for (const email of greylisted) {
      expect(byEmail.get(email), email).toMatchObject({ result: 'unknown', reasonCode: 'greylisted' });
      expect(greylisting.rcptCount(email), email).toBe(1);
    }
  });

  it('keeps DNS answers and the catch-all finding between calls of one verifier', async () => {
    const domain = 'bulk5.test';
    const server = servers.find((candidate) => candidate.host === hostOf(DOMAINS.indexOf(domain)))!;
    server.reset();
    dns.resetCounts();
    const verifier = createVerifier(fixtureOptions(dns, port));
    const asked = [`user1@${domain}`, `user2@${domain}`, `user3@${domain}`];
    for (const email of asked) expect((await verifier.verify(email)).result).toBe('valid');
    expect(dns.queryCount(domain, 'MX')).toBe(1);
    const probes = server.commands.filter((command) => command.startsWith('RCPT') && !asked.some((email) => command.includes(email)));
    expect(probes).toHaveLength(1);
  });

  it('gives one result per entry, duplicates included, with the email as given but trimmed', async () => {
    const verifier = createVerifier(fixtureOptions(dns, port));
    const given = ['user1@bulk0.test', ' user1@bulk0.test ', 'USER1@BULK0.TEST', 'user99@bulk1.test', 'not an address'];
    const results: VerificationResult[] = [];
    await verifier.verifyMany(given, (result) => {
      results.push(result);
    });
    expect(results.map((result) => [result.email, result.result]).sort()).toEqual(
      [
        ['user1@bulk0.test', 'valid'],
        ['user1@bulk0.test', 'valid'],
        ['USER1@BULK0.TEST', 'valid'],
        ['user99@bulk1.test', 'invalid'],
        ['not an address', 'invalid'],
      ].sort(),
    );
  });

  it('waits for an async onResult before handing over the next result, and rethrows its error', async () => {
    const verifier = createVerifier(fixtureOptions(dns, port));
    let inside = 0;
    let overlapped = false;
    await verifier.verifyMany(['user1@bulk2.test', 'user2@bulk2.test', 'user3@bulk3.test'], async () => {
      inside += 1;
      overlapped ||= inside > 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      inside -= 1;
    });
    expect(overlapped).toBe(false);
    await expect(verifier.verifyMany(['user1@bulk2.test'], () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
  });
});
