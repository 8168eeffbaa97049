/**
 * The built `mailverify serve`, killed with SIGKILL in the middle of a 2,000-email job and started
 * again on the same store (its data dir, or `--database-url`): once the killed runner's leases
 * expire, the job completes, every email has exactly one result, the balance was charged once, and
 * progress never went backwards. Needs `npm run build` first.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, MAIL_DOMAIN, pollProgress, startMailWorld, type JobProgress, type MailWorld } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

const TOTAL = 2_000;
const CREDITS = 2_500;
const emails = Array.from({ length: TOTAL }, (_, i) => `user${i}@${MAIL_DOMAIN}`);
const mailboxes = emails.filter((_, i) => i % 2 === 0);

describe.each(STORE_KINDS)('mailverify serve on the $name store after a crash', (kind) => {
  let world: MailWorld;
  let place: StoreFixture;
  const services: RunningService[] = [];

  beforeAll(async () => {
    // Slow replies stretch the job over a few seconds, so that the kill lands in its middle.
    world = await startMailWorld({ mailboxes, replyDelayMs: 5 });
    place = await kind.create();
  });
  afterAll(async () => {
    for (const service of services) await service.kill('SIGKILL');
    await place?.close();
    await world?.close();
  });

  it('resumes the job: each email exactly one result, charged once, progress monotonic', async () => {
    // A data dir serve has to create itself, so that its mode is serve's doing.
    const dataDir = join(place.location.dataDir, 'data');
    // A killed runner's items stay leased to it until the lease expires: a short lease lets the
    // restart take them over within the test (the default minute would only make it wait).
    const engineArgs = [...world.engineArgs, '--lease-seconds', '3'];
    const started = () => startService({ dataDir, databaseUrl: place.location.databaseUrl, engineArgs });
    const first = await started();
    services.push(first);
    // A rate limit above the polling rate: this test is about the job, not the limit.
    const token = await first.createUser('crash@example.org', { credits: CREDITS, rateLimit: 1_000, password: 'survives restarts' });
    const login = await call(first.baseUrl, 'POST', '/v1/auth/login', { json: { email: 'crash@example.org', password: 'survives restarts' } });
    expect(login.status).toBe(200);

    const submitted = await call(first.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails } });
    expect(submitted.status).toBe(200);
    expect(submitted.body.queued).toBe(TOTAL);
    const jobId = submitted.body.jobId as string;

    const seen: JobProgress[] = [];
    await pollProgress(first.baseUrl, jobId, token, (progress) => progress.processed >= TOTAL / 10, seen);
    // The job answers while processing, with as many results as it says are processed.
    const partial = await call(first.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token });
    expect(partial.body.status).toBe('processing');
    expect(partial.body.results).toHaveLength(partial.body.processed);
    await first.kill('SIGKILL');
    services.pop();
    const atKill = seen.at(-1)!;
    expect(atKill.status, 'the kill must land while the job is processing').toBe('processing');
    expect(atKill.processed).toBeLessThan(TOTAL);

    const second = await started();
    services.push(second);
    await pollProgress(second.baseUrl, jobId, token, (progress) => progress.status === 'completed', seen);

    for (const [index, progress] of seen.entries()) {
      expect(Number.isInteger(progress.progress_percent)).toBe(true);
      expect(progress.progress_percent).toBe(Math.floor((100 * progress.processed) / TOTAL));
      expect(progress.progress_percent === 100).toBe(progress.status === 'completed');
      if (index > 0) expect(progress.processed).toBeGreaterThanOrEqual(seen[index - 1]!.processed);
    }

    if (kind.name === 'SQLite') {
      // Secrets stay the owner's: the data dir is 0700, the database, its WAL and the JWT secret 0600.
      expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
      const files = await readdir(dataDir);
      expect(files).toEqual(expect.arrayContaining(['jwt-secret', 'mailverify.db', 'mailverify.db-wal']));
      for (const file of files) expect((await stat(join(dataDir, file))).mode & 0o777, file).toBe(0o600);
    }

    const job = await call(second.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token });
    expect(job.body).toMatchObject({ id: jobId, status: 'completed', total: TOTAL, processed: TOTAL });
    const results = job.body.results as Array<{ email: string; result: string }>;
    expect(results).toHaveLength(TOTAL);
    expect(new Set(results.map((result) => result.email)).size).toBe(TOTAL);
    const expected = new Set(mailboxes);
    for (const result of results) expect(result.result, result.email).toBe(expected.has(result.email) ? 'valid' : 'invalid');

    const account = await call(second.baseUrl, 'GET', '/v1/account', { token });
    expect(account.body.balance).toBe(CREDITS - TOTAL);

    // A graceful stop (SIGTERM) exits 0 and leaves a data dir the next start opens.
    expect(await second.stop()).toBe(0);
    services.pop();
    const third = await started();
    services.push(third);
    expect((await call(third.baseUrl, 'GET', '/healthz')).body).toMatchObject({ status: 'ok' });
    // The JWT secret lives in the store (the data dir's file, or the database): a login from before the crash still works.
    expect((await call(third.baseUrl, 'GET', '/v1/account', { token: login.body.token })).status).toBe(200);
  });
});
