/**
 * The built `mailverify serve` stopped with SIGTERM while a large job still has engine work in
 * flight (greylisted addresses waiting a minute for their retry, which the engine cannot be told to
 * drop): it exits 0 promptly, and a restart on the same data dir completes the job with exactly
 * one result per email, charged once. Needs `npm run build` first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, jobProgress, MAIL_DOMAIN, pollProgress, startMailWorld, type MailWorld } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';

const TOTAL = 3_000;
const CREDITS = 5_000;
const emails = Array.from({ length: TOTAL }, (_, i) => `user${i}@${MAIL_DOMAIN}`);
const mailboxes = emails.filter((_, i) => i % 2 === 0);
/** Their first RCPT gets a 450; the first service retries only after a minute, so they are still in the engine at SIGTERM. */
const greylisted = emails.filter((_, i) => i % 100 === 7);
/** Far below the minute the held-back retries would keep the process alive without a prompt shutdown. */
const EXIT_BOUND_MS = 8_000;

describe('mailverify serve on SIGTERM during a large job', () => {
  let world: MailWorld;
  const services: RunningService[] = [];
  let root: string | undefined;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes, greylist: { times: 1, addresses: greylisted } });
  });
  afterAll(async () => {
    for (const service of services) await service.kill('SIGKILL');
    await world?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('exits 0 promptly; the restart completes the job with one result per email, charged once', async () => {
    root = await mkdtemp(join(tmpdir(), 'mailverify-shutdown-'));
    const dataDir = join(root, 'data');
    const first = await startService({ dataDir, engineArgs: [...world.engineArgs, '--retry-schedule', '3s'] });
    services.push(first);
    const token = await first.createUser('shutdown@example.org', { credits: CREDITS, rateLimit: 1_000 });
    const submitted = await call(first.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails } });
    expect(submitted.status).toBe(200);
    const jobId = submitted.body.jobId as string;

    // Everything but the greylisted addresses is answered; those wait in the store for their next try.
    const atSignal = await pollProgress(first.baseUrl, jobId, token, (progress) => progress.processed >= TOTAL - greylisted.length);
    expect(atSignal.status).toBe('processing');
    const signalledAt = Date.now();
    const exitCode = await first.stop();
    const tookMs = Date.now() - signalledAt;
    services.pop();
    expect(exitCode, first.stderr()).toBe(0);
    expect(tookMs).toBeLessThan(EXIT_BOUND_MS);

    const second = await startService({ dataDir, engineArgs: [...world.engineArgs, '--retry-schedule', '3s'] });
    services.push(second);
    // Every result written before the signal survived it.
    expect((await jobProgress(second.baseUrl, jobId, token)).processed).toBeGreaterThanOrEqual(atSignal.processed);
    await pollProgress(second.baseUrl, jobId, token, (progress) => progress.status === 'completed');

    const job = await call(second.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token });
    expect(job.body).toMatchObject({ id: jobId, status: 'completed', total: TOTAL, processed: TOTAL });
    const results = job.body.results as Array<{ email: string; result: string }>;
    expect(results.map((result) => result.email)).toEqual(emails);
    // The greylisted addresses were accepted on their second RCPT, made by the restarted service.
    const expected = new Set(mailboxes);
    for (const result of results) expect(result.result, result.email).toBe(expected.has(result.email) ? 'valid' : 'invalid');
    const account = await call(second.baseUrl, 'GET', '/v1/account', { token });
    expect(account.body.balance).toBe(CREDITS - TOTAL);
  });
});
