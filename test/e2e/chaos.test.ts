/**
 * Chaos, with the built CLI's processes on a PostgreSQL cluster of this file's own: `serve
 * --no-worker` and three workers verify a job at one slow mail host while, every few seconds, a
 * random worker is SIGKILLed and started again, PostgreSQL is restarted twice and the API node
 * once. The job still completes with every result once and right, charged once, few addresses
 * asked twice (counted at the mail host) and one completion webhook. The same job without chaos,
 * measured first in the same test, says how much the chaos cost (a loose bound only: timing goals
 * live in bench/).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { missing } from '../support/machine.js';
import { expectedVerdict, numberedAddresses } from '../support/numbered-addresses.js';
import { serverBinDir, startCluster, type Cluster } from '../support/postgres-server.js';
import { call, type Reply } from '../support/service-app.js';
import { startService, startWorker, type RunningService, type RunningWorker } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** The job's size: enough that every kind of chaos lands inside it. */
const ADDRESSES = 10_000;
const WORKERS = 3;
const HOST = '127.0.41.1';
const DOMAIN = 'slow.chaos.test';
/** Per reply at the mail host: slow enough that its four sessions, not the processes, bound the job. */
const REPLY_MS = 2;
/** A random worker is killed this often (with jitter), from the job's start until it is nearly done. */
const KILL_EVERY_MS = 5_000;
/** Progress at which PostgreSQL is restarted, and the API node. */
const DATABASE_RESTARTS_AT = [0.2, 0.6];
const API_RESTART_AT = 0.4;
/** Past this, nothing more is broken: a kill in the instant between a job's completion and its webhook would send it twice, as at-least-once allows. */
const CALM_FROM = 0.95;
const DATABASE_DOWN_MS = 2_000;
/** No worker is killed this soon after the database is back (see the loop). */
const AFTER_RESTART_MS = 2_000;
/** The issue's bound on addresses asked again. */
const ASKED_TWICE_AT_MOST = 0.05;
/**
 * A loose bound on the cost of the chaos (the goal is 1.5; timing belongs to bench/ and BENCHMARKS.md:
 * 1.44-1.52 on an idle 2-core machine, up to 2.9 on a loaded one before a dead worker's leases were
 * freed at once): work or slots left to run out their minute would break it.
 */
const SLOWER_AT_MOST = 4;
const CREDITS = 100_000;
const WEBHOOKS = { MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS: '1' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dns: DnsFixture;
let mx: SmtpFixture;
let receiver: WebhookReceiver;
let engineArgs: string[];
let cluster: Cluster | undefined;
const running: Array<RunningService | RunningWorker> = [];

beforeAll(async () => {
  const port = await freePort(HOST);
  const mailboxes = ['calm', 'chaos'].flatMap((prefix) => numberedAddresses(prefix, ADDRESSES, DOMAIN).filter((email) => expectedVerdict(email) === 'valid'));
  mx = await startSmtpServer({ host: HOST, port, mailboxes, replyDelayMs: REPLY_MS });
  dns = await startDnsServer(mxZones(DOMAIN, { [`mx.${DOMAIN}`]: HOST }));
  receiver = await startWebhookReceiver(() => 200);
  engineArgs = ['--dns-server', dns.server, '--smtp-port', String(port), '--helo', 'probe.test', '--mail-from', 'probe@probe.test', '--retry-schedule', 'none'];
});

afterEach(async () => {
  for (const each of running.splice(0).reverse()) await each.stop();
  cluster?.stop();
});

afterAll(async () => {
  await Promise.all([mx?.close(), dns?.close(), receiver?.close()]);
});

/** A request to whichever API node is up: a node being restarted, or a database away (503), is waited out. */
async function ask(api: () => RunningService, method: string, path: string, token: string, json?: unknown): Promise<Reply> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const reply = await call(api().baseUrl, method, path, { token, json }).catch(() => undefined);
    if (reply && reply.status !== 503) return reply;
    if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer but ${reply?.status ?? 'a refused connection'} for a minute`);
    await sleep(100);
  }
}

async function submit(api: () => RunningService, token: string, emails: string[]): Promise<string> {
  const reply = await ask(api, 'POST', '/v1/bulk-verify', token, { emails });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.jobId as string;
}

const progressOf = async (api: () => RunningService, token: string, jobId: string) =>
  (await ask(api, 'GET', `/v1/bulk-verify/${jobId}/progress`, token)).body as { status: string; processed: number };

/** Every result of the job, page by page. */
async function resultsOf(api: () => RunningService, token: string, jobId: string): Promise<Array<{ email: string; result: string }>> {
  const results: Array<{ email: string; result: string }> = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const page = await ask(api, 'GET', `/v1/bulk-verify/${jobId}?limit=5000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
    expect(page.status).toBe(200);
    results.push(...(page.body.results as Array<{ email: string; result: string }>));
    cursor = page.body.next_cursor as string | null;
  }
  return results;
}

describe.skipIf(missing('test/e2e/chaos.test.ts', "PostgreSQL's server programs", serverBinDir() ? undefined : 'none installed'))('chaos on PostgreSQL', () => {
  it('a job survives killed workers, database restarts and an API restart: every result once, charged once, one webhook', { timeout: 240_000 }, async () => {
    cluster = await startCluster();
    const first = await startService({ databaseUrl: cluster.url, engineArgs: [...engineArgs, '--no-worker'], env: WEBHOOKS });
    running.push(first);
    let api = first;
    const current = () => api;
    const workers: RunningWorker[] = [];
    const startOne = async () => {
      const worker = await startWorker(first, engineArgs, WEBHOOKS);
      running.push(worker);
      return worker;
    };
    for (let index = 0; index < WORKERS; index++) workers.push(await startOne());

    // The calm run: the same job, nothing broken.
    const calmToken = await first.createUser('calm@example.test', { credits: CREDITS, rateLimit: 1_000 });
    const calmStarted = Date.now();
    const calmJob = await submit(current, calmToken, numberedAddresses('calm', ADDRESSES, DOMAIN));
    while ((await progressOf(current, calmToken, calmJob)).status !== 'completed') await sleep(200);
    const calmMs = Date.now() - calmStarted;

    const token = await first.createUser('chaos@example.test', { credits: CREDITS, rateLimit: 1_000 });
    const endpoint = await ask(current, 'POST', '/v1/webhooks', token, { url: receiver.url });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    receiver.secret = endpoint.body.secret as string;
    const emails = numberedAddresses('chaos', ADDRESSES, DOMAIN);
    const started = Date.now();
    const jobId = await submit(current, token, emails);

    const done = { kills: 0, databaseRestarts: 0, apiRestarts: 0 };
    let nextKillAt = Date.now() + KILL_EVERY_MS;
    for (;;) {
      const { status, processed } = await progressOf(current, token, jobId);
      if (status === 'completed') break;
      const share = processed / ADDRESSES;
      if (share >= CALM_FROM) {
        await sleep(100);
        continue;
      }
      if (done.databaseRestarts < DATABASE_RESTARTS_AT.length && share >= DATABASE_RESTARTS_AT[done.databaseRestarts]!) {
        cluster.pause();
        await sleep(DATABASE_DOWN_MS);
        cluster.resume();
        done.databaseRestarts += 1;
        // The results finished while the database was away are held in the workers' memory until they
        // are written (the runner's maxBufferedResults); a worker killed in that moment loses them all,
        // hundreds at this pace. A kill due then waits until they are written, a couple of seconds.
        nextKillAt = Math.max(nextKillAt, Date.now() + AFTER_RESTART_MS);
      } else if (done.apiRestarts === 0 && share >= API_RESTART_AT) {
        const port = Number(new URL(api.baseUrl).port);
        await api.kill('SIGKILL');
        api = await startService({ databaseUrl: cluster.url, dataDir: first.dataDir, port, engineArgs: [...engineArgs, '--no-worker'], env: WEBHOOKS });
        running.push(api);
        done.apiRestarts += 1;
      } else if (Date.now() >= nextKillAt) {
        const victim = Math.floor(Math.random() * workers.length);
        await workers[victim]!.kill('SIGKILL');
        workers[victim] = await startOne();
        done.kills += 1;
        nextKillAt = Date.now() + KILL_EVERY_MS * (0.5 + Math.random());
      }
      await sleep(100);
    }
    const chaosMs = Date.now() - started;

    expect(done).toMatchObject({ databaseRestarts: DATABASE_RESTARTS_AT.length, apiRestarts: 1 });
    expect(done.kills).toBeGreaterThanOrEqual(2);
    // Every result once, and right; charged once.
    const results = await resultsOf(current, token, jobId);
    expect(results.map((result) => result.email)).toEqual(emails);
    expect(results.map((result) => result.result)).toEqual(emails.map(expectedVerdict));
    expect((await ask(current, 'GET', '/v1/account', token)).body.balance).toBe(CREDITS - ADDRESSES);
    // Every address asked, few of them twice.
    const asked = emails.map((email) => mx.rcptCount(email));
    expect(asked.filter((count) => count === 0)).toEqual([]);
    const twice = asked.filter((count) => count > 1).length;
    expect(twice).toBeLessThanOrEqual(ADDRESSES * ASKED_TWICE_AT_MOST);
    // One completion webhook: waited for, then a while longer for a second that must not come.
    await receiver.waitFor(1, 30_000);
    await sleep(3_000);
    const completions = receiver.deliveries.filter((delivery) => JSON.parse(delivery.body).type === 'bulk_job.completed');
    expect(completions).toHaveLength(1);
    expect(JSON.parse(completions[0]!.body).data).toMatchObject({ jobId, total: ADDRESSES });
    expect(completions[0]!.signed).toBe(true);
    expect(chaosMs).toBeLessThanOrEqual(SLOWER_AT_MOST * calmMs);
    console.info(
      `chaos: ${done.kills} workers killed, PostgreSQL restarted ${done.databaseRestarts} times, the API once; ` +
        `${twice} of ${ADDRESSES} addresses asked twice; ${(chaosMs / 1000).toFixed(1)} s against ${(calmMs / 1000).toFixed(1)} s calm (${(chaosMs / calmMs).toFixed(2)}x)`,
    );
  });
});
