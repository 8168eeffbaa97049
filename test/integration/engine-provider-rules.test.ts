// Provider rules applied by the engine, against real SMTP servers on loopback whose MX names match
// the rules' suffixes: session and RCPT limits, pauses, a skipped catch-all probe, a 250 that proves
// nothing, and a proxy for one provider only.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type VerificationResult } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { startSocksServer, type SocksFixture } from '../support/socks-server.js';
import { testTempDir } from '../support/temp-dirs.js';

const HOSTS = { limited: '127.0.22.1', paused: '127.0.22.2', gateway: '127.0.22.3', acceptAll: '127.0.22.4', proxied: '127.0.22.5' };
const RULES = {
  'limited.test': { sessionLimit: 1, rcptsPerSession: 2, source: 'test' },
  'paused.test': { sessionLimit: 1, rcptsPerSession: 1, pauseMs: 200, source: 'test' },
  'gateway.test': { acceptProvesMailbox: false, skipCatchAllProbe: true, source: 'test: a gateway' },
  'acceptall.test': { acceptProvesMailbox: false, skipCatchAllProbe: true, source: 'test: accepts everything, bounces later' },
};
const LIMITED = Array.from({ length: 8 }, (_, i) => `user${i}@limited.test`);

let dns: DnsFixture;
let port: number;
let proxy: SocksFixture;
let rulesFile: string;
const smtp: Record<keyof typeof HOSTS, SmtpFixture> = {} as never;

beforeAll(async () => {
  port = await freePort(Object.values(HOSTS));
  smtp.limited = await startSmtpServer({ host: HOSTS.limited, port, mailboxes: LIMITED.slice(0, 5) });
  smtp.paused = await startSmtpServer({ host: HOSTS.paused, port, mailboxes: ['ann@paused.test'] });
  smtp.gateway = await startSmtpServer({ host: HOSTS.gateway, port, mailboxes: ['ann@gateway.test'] });
  smtp.acceptAll = await startSmtpServer({ host: HOSTS.acceptAll, port, catchAll: true });
  smtp.proxied = await startSmtpServer({ host: HOSTS.proxied, port, mailboxes: ['ann@proxied.test'] });
  dns = await startDnsServer(
    {
      ...mxZones('limited.test', { 'mx.limited.test': HOSTS.limited }),
      ...mxZones('paused.test', { 'mx.paused.test': HOSTS.paused }),
      ...mxZones('gateway.test', { 'mx.gateway.test': HOSTS.gateway }),
      ...mxZones('acceptall.test', { 'mx.acceptall.test': HOSTS.acceptAll }),
      ...mxZones('proxied.test', { 'mx.proxied.test': HOSTS.proxied }),
    },
    { host: '127.0.22.10' },
  );
  proxy = await startSocksServer({ host: '127.0.22.11' });
  rulesFile = join(testTempDir('rules'), 'rules.json');
  writeFileSync(rulesFile, JSON.stringify({ ...RULES, 'proxied.test': { proxy: proxy.url, source: 'test' } }, null, 2));
});

afterAll(async () => {
  await Promise.all([...Object.values(smtp).map((server) => server.close()), dns?.close(), proxy?.close()]);
});

async function verifyAll(emails: string[]): Promise<Map<string, VerificationResult>> {
  // perHostConcurrency above the rules' limits: what holds the sessions back is the rule.
  const verifier = createVerifier(fixtureOptions(dns, port, { providerRulesFile: rulesFile, perHostConcurrency: 4 }));
  const results = new Map<string, VerificationResult>();
  await verifier.verifyMany(emails, (result) => {
    results.set(result.email, result);
  });
  return results;
}

/** RCPTs of each session, from a server's commands: sessions one at a time, each begins with EHLO. */
function rcptsPerSession(server: SmtpFixture): number[] {
  const counts: number[] = [];
  for (const command of server.commands) {
    if (command.startsWith('EHLO')) counts.push(0);
    else if (command.startsWith('RCPT')) counts[counts.length - 1]! += 1;
  }
  return counts;
}

describe('provider rules in the engine', () => {
  it('keeps to a rule of one session at once and two RCPTs per session, with the same verdicts', async () => {
    const results = await verifyAll(LIMITED);
    expect(LIMITED.map((email) => results.get(email)?.result)).toEqual([...Array(5).fill('valid'), ...Array(3).fill('invalid')]);
    expect(smtp.limited.peakSessions()).toBe(1);
    const counts = rcptsPerSession(smtp.limited);
    // 8 addresses and the catch-all probe: at least five sessions of at most two RCPTs.
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(LIMITED.length + 1);
    expect(counts.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...counts)).toBeLessThanOrEqual(2);
  });

  it('pauses between sessions at one host', async () => {
    const started = Date.now();
    const results = await verifyAll(['ann@paused.test', 'bob@paused.test']);
    expect(results.get('ann@paused.test')?.result).toBe('valid');
    // The probe and two addresses, one RCPT per session: three sessions, two pauses between them.
    expect(smtp.paused.sessionCount()).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('gives no valid where a 250 proves nothing, says why, still believes a 550, and asks no random address', async () => {
    const results = await verifyAll(['ann@gateway.test', 'bob@gateway.test', 'ann@acceptall.test', 'nobody@acceptall.test']);
    for (const email of ['ann@gateway.test', 'ann@acceptall.test', 'nobody@acceptall.test']) {
      expect(results.get(email)).toMatchObject({ result: 'unknown', reasonCode: 'accept_unproven', checks: { smtpStatus: 'valid' } });
    }
    expect(results.get('ann@gateway.test')?.reason).toMatch(
      /^accepted by the recipient's server: 250 .*, but no proof: mx\.gateway\.test accepts every address at RCPT TO \(provider rule gateway\.test\)$/,
    );
    expect(results.get('bob@gateway.test')).toMatchObject({ result: 'invalid', reasonCode: 'mailbox_not_found' });
    expect(smtp.gateway.rcptCount()).toBe(2);
    expect(smtp.acceptAll.rcptCount()).toBe(2);
  });

  it('sends the connections of a provider whose rule names a proxy through it, and only those', async () => {
    proxy.relayed.length = 0;
    const results = await verifyAll(['ann@proxied.test', 'user0@limited.test']);
    expect(results.get('ann@proxied.test')?.result).toBe('valid');
    expect(results.get('user0@limited.test')?.result).toBe('valid');
    expect(proxy.relayed.length).toBe(smtp.proxied.sessionCount());
    expect(new Set(proxy.relayed)).toEqual(new Set([`${HOSTS.proxied}:${port}`]));
  });
});
