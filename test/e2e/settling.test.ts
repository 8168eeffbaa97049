/**
 * Temporary answers settled later (docs/architecture.md "Settling later"), by the built CLI's
 * processes: a greylisted address at the real Postfix + postgrey of test/support/postfix/ (its
 * delay 2 s) settles `valid` on a short schedule, through `serve` on SQLite and through a `worker`
 * on PostgreSQL, with the node restarted while the address waits; a host that answers 451 to every
 * try settles `unknown` after the last; a job's settleWithin ends its waiting on time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { missing } from '../support/machine.js';
import { postfixEngineArgs, postfixProblem } from '../support/postfix.js';
import { call, jobProgress, pollProgress, type JobProgress } from '../support/service-app.js';
import { runCli, startService, startWorker, type RunningService, type RunningWorker } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const CREDITS = 100;
const GREY = 'grey@mailbox.test';
const EMAILS = ['alice@mailbox.test', GREY, 'nobody@mailbox.test'];
const PRIVATE_WEBHOOKS = { MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS: '1' };

/** The Postfix fixture on a short schedule: postgrey's 2 s delay has passed by the first retry. */
const postfixArgs = () => [...postfixEngineArgs(), '--retry-schedule', '3s,8s,20s'];

const running: Array<RunningService | RunningWorker> = [];
const places: StoreFixture[] = [];
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const each of running.splice(0).reverse()) await each.stop();
  for (const place of places.splice(0)) await place.close();
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function start(startNode: () => Promise<RunningService | RunningWorker>): Promise<RunningService | RunningWorker> {
  const node = await startNode();
  running.push(node);
  return node;
}

async function stopNode(node: RunningService | RunningWorker): Promise<void> {
  running.splice(running.indexOf(node), 1);
  await node.stop();
}

const absent = missing('test/e2e/settling.test.ts', 'the Postfix fixture', await postfixProblem());

describe.skipIf(absent).each(STORE_KINDS)('a greylisted address at a real postgrey, on a $name store', (kind) => {
  it('waits in the store across a restart of the node that asked it, then settles valid: charged once, one webhook', { timeout: 120_000 }, async () => {
    const place = await kind.create();
    places.push(place);
    const engineArgs = postfixArgs();
    // SQLite: one serve with its runner, restarted. PostgreSQL: an API-only serve and a worker, the worker restarted.
    const onPostgres = kind.name === 'PostgreSQL';
    const api = (await start(() =>
      startService({ ...place.location, engineArgs: [...engineArgs, ...(onPostgres ? ['--no-worker'] : [])], env: PRIVATE_WEBHOOKS }),
    )) as RunningService;
    const asker = onPostgres ? await start(() => startWorker(api, engineArgs, PRIVATE_WEBHOOKS)) : api;
    const token = await api.createUser('patient@example.test', { credits: CREDITS, rateLimit: 1_000 });
    const receiver = await startWebhookReceiver(() => 200);
    receivers.push(receiver);
    expect((await call(api.baseUrl, 'POST', '/v1/webhooks', { token, json: { url: receiver.url } })).status).toBe(201);

    const submitted = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: EMAILS } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const jobId = submitted.body.jobId as string;

    // The greylisted address waits: the job is processing, its other results are readable at once.
    const waiting = await pollProgress(api.baseUrl, jobId, token, (progress) => (progress.waiting ?? 0) > 0);
    expect(waiting).toMatchObject({ status: 'processing', waiting: 1, processed: 2, progress_percent: 66 });
    expect(Date.parse(waiting.nextAttemptAt!)).toBeGreaterThan(Date.now() - 5_000);
    const sofar = await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token });
    expect(sofar.body).toMatchObject({ status: 'processing', processed: 2 });
    expect(sofar.body.results).toEqual([
      expect.objectContaining({ email: 'alice@mailbox.test', result: 'valid' }),
      expect.objectContaining({ email: GREY, result: 'unknown', reasonCode: 'greylisted', nextAttemptAt: waiting.nextAttemptAt }),
      expect.objectContaining({ email: 'nobody@mailbox.test', result: 'invalid' }),
    ]);
    // What the CLI says while it waits.
    const status = await runCli(['bulk', 'status', jobId], { env: { MAILVERIFY_BASE_URL: api.baseUrl, MAILVERIFY_TOKEN: token } });
    expect(status.stdout).toMatch(/processing, 2\/3 \(66%\); 1 waiting for their next try \(greylisting\), the next at \d\d:\d\d/);

    // The node that asked goes away while the address waits; a new one takes the row up at its due time.
    await stopNode(asker);
    let api2 = api;
    if (onPostgres) await start(() => startWorker(api, engineArgs, PRIVATE_WEBHOOKS));
    else api2 = (await start(() => startService({ ...place.location, engineArgs, env: PRIVATE_WEBHOOKS }))) as RunningService;

    const seen: JobProgress[] = [];
    await pollProgress(api2.baseUrl, jobId, token, (progress) => progress.status === 'completed', seen);
    const job = await call(api2.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token });
    expect(job.body).toMatchObject({ status: 'completed', processed: 3 });
    expect((job.body.results as Array<{ email: string; result: string }>).map((result) => [result.email, result.result])).toEqual([
      ['alice@mailbox.test', 'valid'],
      [GREY, 'valid'],
      ['nobody@mailbox.test', 'invalid'],
    ]);
    expect(job.body.results[1]).not.toHaveProperty('nextAttemptAt');
    // 100 % only once completed; charged once for three addresses; one completion webhook.
    expect(seen.filter((progress) => progress.progress_percent === 100).every((progress) => progress.status === 'completed')).toBe(true);
    expect((await call(api2.baseUrl, 'GET', '/v1/account', { token })).body.balance).toBe(CREDITS - EMAILS.length);
    const [delivery] = await receiver.waitFor(1);
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'bulk_job.completed', data: { jobId } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.deliveries).toHaveLength(1);
  });
});

describe('a host that answers 451 to every try', () => {
  const HOST = '127.0.17.41';
  const DOMAIN = 'busy.settle.test';
  let dns: DnsFixture;
  let smtp: SmtpFixture;
  let engineArgs: string[];

  beforeAll(async () => {
    const port = await freePort([HOST]);
    const replies = Object.fromEntries(
      ['busy', 'slow', 'late'].map((local) => [`${local}@${DOMAIN}`, '451 4.7.1 Service temporarily unavailable, try again later']),
    );
    smtp = await startSmtpServer({ host: HOST, port, mailboxes: [`fine@${DOMAIN}`], replies });
    dns = await startDnsServer(mxZones(DOMAIN, { [`mx.${DOMAIN}`]: HOST }));
    engineArgs = ['--dns-server', dns.server, '--smtp-port', String(port), '--helo', 'probe.test', '--mail-from', 'probe@probe.test'];
  });
  afterAll(async () => {
    await Promise.all([smtp?.close(), dns?.close()]);
  });

  it('settles unknown after the last try, with the last reply, each try one RCPT', { timeout: 60_000 }, async () => {
    const api = (await start(() => startService({ engineArgs: [...engineArgs, '--retry-schedule', '1s,2s'] }))) as RunningService;
    const token = await api.createUser('busy@example.test', { credits: CREDITS, rateLimit: 1_000 });
    const emails = [`busy@${DOMAIN}`, `fine@${DOMAIN}`];
    const jobId = (await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails } })).body.jobId as string;
    await pollProgress(api.baseUrl, jobId, token, (progress) => progress.status === 'completed');
    const job = await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token });
    expect(job.body.results[0]).toMatchObject({ email: `busy@${DOMAIN}`, result: 'unknown', reason: expect.stringContaining('451 4.7.1') });
    expect(job.body.results[0]).not.toHaveProperty('nextAttemptAt');
    expect(smtp.rcptCount(`busy@${DOMAIN}`)).toBe(3);
    expect(smtp.rcptCount(`fine@${DOMAIN}`)).toBe(1);
  });

  it('completes a job on time when its settleWithin ends the schedule early', { timeout: 60_000 }, async () => {
    const api = (await start(() => startService({ engineArgs: [...engineArgs, '--retry-schedule', '1s,2s,30s,60s'] }))) as RunningService;
    const token = await api.createUser('hurried@example.test', { credits: CREDITS, rateLimit: 1_000 });
    const startedAt = Date.now();
    const submitted = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: [`slow@${DOMAIN}`], settleWithin: 5 } });
    const jobId = submitted.body.jobId as string;
    await pollProgress(api.baseUrl, jobId, token, (progress) => progress.status === 'completed');
    // Asked at 0, 1 s and 2 s; the next try (30 s) would come after the 5 s: it settles at once.
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    expect(smtp.rcptCount(`slow@${DOMAIN}`)).toBe(3);
    expect((await jobProgress(api.baseUrl, jobId, token)).waiting).toBeUndefined();
    const bad = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: [`late@${DOMAIN}`], settleWithin: -1 } });
    expect(bad.status).toBe(400);
  });
});
