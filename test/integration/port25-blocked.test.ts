/**
 * A network that drops outbound SMTP: an iptables rule (set up here as root, removed after) drops
 * every SYN to a /28 of our loopback range on the test's SMTP port, as most clouds and home ISPs
 * drop port 25. Needs root and iptables (`npm run test:setup` installs it); skipped, saying so, without them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { diagnoseNetwork } from '../../src/engine/diagnose.js';
import { createVerifier, resolveEngineOptions } from '../../src/engine/index.js';
import { buildApp } from '../../src/server/app.js';
import { createJwtIssuer } from '../../src/server/auth/jwt.js';
import { openSqliteStore } from '../../src/server/store/open/sqlite-store.js';
import { startDnsServer, type DnsFixture, type ZoneBehaviour } from '../support/dns-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';
import { commandProblem, isRoot, missing } from '../support/machine.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

const DROPPED = '127.0.13.64/28';
const hostAddress = (index: number) => `127.0.13.${64 + (index % 16)}`;
/** Nothing listens there and nothing drops: connections are refused at once. */
const refusingAddress = (index: number) => `127.0.13.${90 + index}`;
const DOMAINS = 75;
const PER_DOMAIN = 4;
const CONNECT_TIMEOUT_MS = 1_000;
/** Two sessions at once: without the fail-fast, 50 domains would wait 25 connect timeouts in turn. */
const CONCURRENCY = 2;
/** The host that confirms a suspicion (no customer's): dropped too, so the port is found blocked. */
const CHECK_HOST = '127.0.13.79';

const absent = missing('test/integration/port25-blocked.test.ts', 'iptables, as root', isRoot ? commandProblem('iptables') : 'not running as root');

/** Two egresses on loopback: every SYN from the first to the test's port is dropped; the second gets through. */
const DROPPED_EGRESS = '127.0.69.2';
const OPEN_EGRESS = '127.0.69.1';
/** Mail hosts that answer (from the open egress), one domain each. */
const answeringHost = (index: number) => `127.0.13.${100 + index}`;
const ANSWERING = 4;

let dns: DnsFixture;
let port: number;
let rule: string[];
let egressRule: string[];
let answering: SmtpFixture[] = [];

function iptables(action: '-I' | '-D', which = rule): void {
  execFileSync('iptables', ['-w', '5', action, 'OUTPUT', ...which], { stdio: ['ignore', 'ignore', 'pipe'] });
}

beforeAll(async () => {
  if (absent) return;
  port = await freePort();
  rule = ['-d', DROPPED, '-p', 'tcp', '--dport', String(port), '-j', 'DROP'];
  egressRule = ['-s', DROPPED_EGRESS, '-p', 'tcp', '--dport', String(port), '-j', 'DROP'];
  answering = await Promise.all(
    Array.from({ length: ANSWERING }, (_, index) =>
      startSmtpServer({ host: answeringHost(index), port, mailboxes: Array.from({ length: 40 }, (_, n) => `user${n}@a${index}.answering.test`) }),
    ),
  );
  const zones: Record<string, ZoneBehaviour> = {};
  for (let index = 0; index < ANSWERING; index += 1)
    Object.assign(zones, mxZones(`a${index}.answering.test`, { [`mx${index}.answering.test`]: answeringHost(index) }));
  for (let index = 0; index < DOMAINS; index += 1) Object.assign(zones, mxZones(`d${index}.blocked.test`, { [`mx${index}.blocked.test`]: hostAddress(index) }));
  for (let index = 0; index < 5; index += 1) Object.assign(zones, mxZones(`r${index}.refused.test`, { [`mx${index}.refused.test`]: refusingAddress(index) }));
  dns = await startDnsServer(zones, { host: '127.0.13.30' });
  iptables('-I');
  iptables('-I', egressRule);
});

afterAll(async () => {
  if (rule) iptables('-D');
  if (egressRule) iptables('-D', egressRule);
  await Promise.all([dns?.close(), ...answering.map((fixture) => fixture.close())]);
});

const addresses = (domain: (index: number) => string, domains: number) =>
  Array.from({ length: domains * PER_DOMAIN }, (_, index) => `user${index}@${domain(index % domains)}`);

describe.skipIf(absent)('outbound SMTP dropped by the network', () => {
  it('is reported as blocked once the check host times out too, and a 300-address list at 75 domains does not wait a connect timeout per domain', async () => {
    const verifier = createVerifier(
      fixtureOptions(dns, port, { connectTimeoutMs: CONNECT_TIMEOUT_MS, concurrency: CONCURRENCY, port25CheckHosts: [CHECK_HOST] }),
    );
    const emails = addresses((index) => `d${index}.blocked.test`, DOMAINS);
    const results: { result: string; reason: string; reasonCode: string }[] = [];
    const started = Date.now();
    await verifier.verifyMany(emails, (result) => {
      results.push(result);
    });
    const elapsed = Date.now() - started;

    expect(results).toHaveLength(300);
    // Every one names the port, those whose connection timed out before the check host confirmed it too:
    // the machine's network, not the customer's host.
    for (const result of results) {
      expect(result.result).toBe('unknown');
      expect(result.reasonCode, result.reason).toBe('port25_blocked');
      expect(result.reason).toMatch(/outbound port \d+ appears blocked on this network: .*use --proxy or run where port \d+ is open/);
    }
    expect(verifier.network.status().port25).toMatchObject({ state: 'blocked', reason: expect.stringContaining(`outbound port ${port} appears blocked`) });
    // 38 timeouts one after the other without the fail-fast; a small multiple of one with it (a generous bound).
    expect(elapsed).toBeLessThan(8 * CONNECT_TIMEOUT_MS);
  });

  it('is judged per egress: one whose SYNs are dropped is passed over, and the other carries every address', async () => {
    // The dropped egress first: the pool's first choice at every host, until its port is found blocked.
    const verifier = createVerifier(
      fixtureOptions(dns, port, { connectTimeoutMs: CONNECT_TIMEOUT_MS, sourceAddresses: [DROPPED_EGRESS, OPEN_EGRESS], port25CheckHosts: [answeringHost(0)] }),
    );
    const domain = (index: number) => `a${index}.answering.test`;
    const list = (from: number) => Array.from({ length: ANSWERING * 3 }, (_, index) => `user${from + index}@${domain(index % ANSWERING)}`);
    await verifier.verifyMany(list(0), () => undefined);
    // Timeouts at three hosts through it made it suspect; its check host timed out too: blocked, for it alone.
    await vi.waitFor(() => expect(verifier.network.status().port25.reason).toMatch(/egress 127\.0\.69\.2: blocked \(outbound port \d+ appears blocked/), {
      timeout: 3 * CONNECT_TIMEOUT_MS,
    });
    expect(verifier.network.status().port25.state).toBe('suspect');

    for (const fixture of answering) fixture.reset();
    const results: { result: string; reasonCode: string }[] = [];
    await verifier.verifyMany(list(ANSWERING * 3), (result) => {
      results.push(result);
    });
    expect(results.map((result) => `${result.result} ${result.reasonCode}`)).toEqual(Array(ANSWERING * 3).fill('valid accepted'));
    expect(new Set(answering.flatMap((fixture) => fixture.clientAddresses()))).toEqual(new Set([OPEN_EGRESS]));
  });

  it('is not concluded from refused connections: a refusal is an answer', async () => {
    const verifier = createVerifier(fixtureOptions(dns, port, { connectTimeoutMs: CONNECT_TIMEOUT_MS }));
    const results: { reason: string; reasonCode: string }[] = [];
    const refused = addresses((index) => `r${index}.refused.test`, 5);
    await verifier.verifyMany(refused, (result) => {
      results.push(result);
    });
    expect(results).toHaveLength(refused.length);
    expect(results.every((result) => /ECONNREFUSED/.test(result.reason))).toBe(true);
    expect(results.every((result) => result.reasonCode === 'connection_failed')).toBe(true);
    expect(verifier.network.status().port25.state).not.toBe('blocked');
  });

  it('is what doctor says of the port, naming the hosts that did not answer', async () => {
    const options = resolveEngineOptions(fixtureOptions(dns, port, { connectTimeoutMs: CONNECT_TIMEOUT_MS }));
    const diagnoses = await diagnoseNetwork(options, { mailHosts: ['mx1.blocked.test', hostAddress(2)] });
    expect(diagnoses.find((diagnosis) => diagnosis.check === `port ${port}`)).toMatchObject({
      status: 'problem',
      detail: expect.stringMatching(
        new RegExp(
          `^outbound port ${port} appears blocked on this network: no mail host answered \\(mx1\\.blocked\\.test: no connection to 127\\.0\\.13\\.65:${port} within`,
        ),
      ),
    });
  });

  it('shows in /healthz only as "cannot verify" with status still "ok", and is logged once, not per address', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mailverify-port25-'));
    const store = openSqliteStore(dataDir);
    const verifier = createVerifier(fixtureOptions(dns, port, { connectTimeoutMs: CONNECT_TIMEOUT_MS, port25CheckHosts: [CHECK_HOST] }));
    const lines: string[] = [];
    const app = buildApp({
      store,
      verifier,
      network: verifier.network,
      jwt: await createJwtIssuer(await store.install.signingSecret()),
      onJobCreated: () => undefined,
      log: { level: 'warn', stream: { write: (line) => void lines.push(line) } },
    });
    try {
      const before = (await app.inject({ method: 'GET', url: '/healthz' })).json();
      expect(before).toEqual({ status: 'ok', details: { canVerify: true } });

      await verifier.verifyMany(
        addresses((index) => `d${index}.blocked.test`, 10),
        () => undefined,
      );
      // The ten hosts time out together; the check host is tried after them, and times out a connect timeout later.
      await vi.waitFor(() => expect(verifier.network.status().port25.state).toBe('blocked'), { timeout: 3 * CONNECT_TIMEOUT_MS });
      const after = await app.inject({ method: 'GET', url: '/healthz' });
      expect(after.statusCode).toBe(200);
      // Whether it can verify, and nothing of which hosts or why: that is the operator's (the log below).
      expect(after.json()).toEqual({ status: 'ok', details: { canVerify: false } });
      const warnings = lines.filter((line) => line.includes('appears blocked'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, network: { port25: { state: 'blocked' } } });
    } finally {
      await app.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
