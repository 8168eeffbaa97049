import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VerificationResult } from '../../src/engine/core/types.js';
import { hashApiToken } from '../../src/server/auth/api-tokens.js';
import { instrumentStore } from '../../src/server/metrics/instrument-store.js';
import { Metrics } from '../../src/server/metrics/metrics.js';
import { retention as retentionService } from '../../src/server/maintenance/retention.js';
import { startMaintenance } from '../../src/server/maintenance/supervisor.js';
import { cacheKey } from '../../src/server/store/rows/result-cache.js';
import type { Store, WorkChunk } from '../../src/server/store/store.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

// Data leaves when asked (store.ts JobStore.deleteJob, deleteFinishedBefore, AccountStore.deleteUser), on both stores.

const LEASE_MS = 60_000;

describe.each(STORE_KINDS)('deletion on the $name store', (kind) => {
  let place: StoreFixture;
  let store: Store;
  let clock: Date;
  const later = (ms: number) => (clock = new Date(clock.getTime() + ms));

  const addUser = async (email: string, balance = 100) =>
    (await store.accounts.createUser({ email, passwordHash: null, balance, rateLimit: 20, rateWindowSeconds: 1 })).id;
  const result = (email: string): VerificationResult =>
    ({ email, result: 'valid', reason: 'test', reasonCode: 'accepted', checks: {} }) as unknown as VerificationResult;
  const save = (chunk: WorkChunk, count = chunk.items.length) =>
    store.work.saveResults(
      chunk.items.slice(0, count).map((item) => ({ lease: chunk.lease, jobId: chunk.jobId, position: item.position, result: result(item.email) })),
    );

  async function createJob(userId: number, emails: string[]): Promise<string> {
    const created = await store.jobs.createJob(userId, emails);
    if (!created.ok) throw new Error('expected a job');
    return created.jobId;
  }

  /** Creates a job and writes every result: completed at the clock's time. */
  async function completedJob(userId: number, emails: string[]): Promise<string> {
    const jobId = await createJob(userId, emails);
    const chunk = (await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS }))!;
    expect(chunk.jobId).toBe(jobId);
    await save(chunk);
    return jobId;
  }

  /** Rows of the job left in the store's own tables. */
  async function rowsOf(jobId: string): Promise<{ items: number; jobs: number; uploads: number }> {
    const count = async (table: string, column: string) =>
      Number((await place.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = '${jobId}'`))[0]!.n);
    return { items: await count('job_items', 'job_id'), jobs: await count('jobs', 'id'), uploads: await count('list_uploads', 'job_id') };
  }

  beforeEach(async () => {
    place = await kind.create();
    clock = new Date('2026-11-21T12:00:00.000Z');
    store = await place.open(() => clock);
  });

  afterEach(() => place.close());

  it('deletes a completed job of its owner with its addresses, results and upload; the ledger keeps its amounts', async () => {
    const owner = await addUser('owner@example.test');
    const stranger = await addUser('stranger@example.test');
    const uploadId = (await store.dashboard.createUpload(owner, 'list.csv', Buffer.from('email\na@x.test\nb@x.test\n')))!;
    const jobId = await completedJob(owner, ['a@x.test', 'B@x.test']);
    await store.dashboard.attachUploadToJob(owner, uploadId, jobId, 'email');
    expect(await rowsOf(jobId)).toEqual({ items: 2, jobs: 1, uploads: 1 });
    const ledger = await store.accounts.ledger(owner);
    const fresh = clock.getTime() + 86_400_000;
    const cached = (addressKey: string, userId: number) => ({
      addressKey,
      userId,
      result: result(addressKey),
      verifiedAt: clock.toISOString(),
      freshUntil: fresh,
    });
    // `B@x.test` as asked, in any case (its provider folds case), and as every verdict was kept before case was kept.
    const keysOfB = [cacheKey('B@x.test', false), cacheKey('B@x.test', true), 'b@x.test'];
    await store.resultCache.remember([
      cached('a@x.test', owner),
      cached('a@x.test', stranger),
      cached('elsewhere@x.test', owner),
      ...keysOfB.map((key) => cached(key, owner)),
    ]);

    expect(await store.jobs.deleteJob(stranger, jobId)).toBeUndefined();
    expect(await store.jobs.getJob(owner, jobId)).toBeDefined();
    expect(await store.jobs.deleteJob(owner, jobId)).toEqual({ refunded: 0 });
    expect(await rowsOf(jobId)).toEqual({ items: 0, jobs: 0, uploads: 0 });
    expect(await store.jobs.getJob(owner, jobId)).toBeUndefined();
    expect(await store.jobs.readResults(jobId, { after: -1, limit: 10 })).toEqual([]);
    expect(await store.jobs.listJobs(owner, 10)).toEqual([]);
    expect(await store.accounts.ledger(owner)).toEqual(ledger);
    expect((await store.accounts.findUserById(owner))!.balance).toBe(98);
    // The owner's cached verdicts about the job's addresses went with it; another account's, and the owner's others, stay.
    expect([...(await store.resultCache.recall(['a@x.test', 'elsewhere@x.test'], clock.getTime(), owner)).keys()]).toEqual(['elsewhere@x.test']);
    expect((await store.resultCache.recall(['a@x.test'], clock.getTime(), stranger)).size).toBe(1);
    expect((await store.resultCache.recall(keysOfB, clock.getTime(), owner)).size).toBe(0);
    expect(await store.jobs.deleteJob(owner, jobId)).toBeUndefined();
  });

  it('stops a job still processing: its unverified addresses are refunded once, and a chunk in flight writes nothing', async () => {
    const owner = await addUser('owner@example.test');
    const jobId = await createJob(owner, ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test']);
    const chunk = (await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS }))!;
    await save(chunk, 1);
    expect((await store.accounts.findUserById(owner))!.balance).toBe(96);

    // Through the metrics' view of the store, as serve has it: the refund counts as one.
    const metrics = new Metrics();
    expect(await instrumentStore(store, metrics).jobs.deleteJob(owner, jobId)).toEqual({ refunded: 3 });
    expect((await metrics.creditsRefunded.get()).values.map((each) => each.value)).toEqual([3]);
    expect(await rowsOf(jobId)).toEqual({ items: 0, jobs: 0, uploads: 0 });
    // The three without a result, given back in one ledger row naming the job.
    expect((await store.accounts.findUserById(owner))!.balance).toBe(99);
    expect((await store.accounts.ledger(owner)).at(-1)).toMatchObject({ delta: 3, reason: 'refund', jobId });
    // The runner holding the chunk finds nothing to renew and nothing to write.
    expect(await store.work.renewLeases([chunk.lease], LEASE_MS)).toEqual([]);
    await store.work.saveResults(chunk.items.slice(1).map((item) => ({ lease: chunk.lease, jobId, position: item.position, result: result(item.email) })));
    expect(await rowsOf(jobId)).toEqual({ items: 0, jobs: 0, uploads: 0 });
    expect(await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS })).toBeUndefined();
    expect((await store.accounts.findUserById(owner))!.balance).toBe(99);
  });

  it('keeps a verdict in the result cache only with its written result: the chunk of a deleted job keeps none', async () => {
    const owner = await addUser('owner@example.test');
    const kept = (email: string) => ({
      addressKey: email,
      userId: owner,
      result: result(email),
      verifiedAt: clock.toISOString(),
      freshUntil: clock.getTime() + 86_400_000,
    });
    const saveKeeping = (chunk: WorkChunk) =>
      store.work.saveResults(
        chunk.items.map((item) => ({ lease: chunk.lease, jobId: chunk.jobId, position: item.position, result: result(item.email), keep: kept(item.email) })),
      );
    const cachedOf = async (emails: string[]) => [...(await store.resultCache.recall(emails, clock.getTime(), owner)).keys()].sort();

    // Written under its lease: kept with it, in the same transaction.
    await createJob(owner, ['kept@x.test']);
    await saveKeeping((await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS }))!);
    expect(await cachedOf(['kept@x.test'])).toEqual(['kept@x.test']);

    // Deleted while its chunk was worked: the runner's late batch writes no result and keeps no verdict.
    const jobId = await createJob(owner, ['gone1@x.test', 'gone2@x.test']);
    const chunk = (await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS }))!;
    expect(chunk.jobId).toBe(jobId);
    expect(await store.jobs.deleteJob(owner, jobId)).toEqual({ refunded: 2 });
    expect(await saveKeeping(chunk)).toEqual({ completedJobs: 0, refunded: 0 });
    expect(await cachedOf(['gone1@x.test', 'gone2@x.test'])).toEqual([]);
    expect(Number((await place.query<{ n: number }>("SELECT count(*) AS n FROM result_cache WHERE address_key LIKE 'gone%'"))[0]!.n)).toBe(0);
  });

  it('keeps uploads not submitted within a cap per account, lists them, and deletes them when asked or past the retention', async () => {
    const owner = await addUser('owner@example.test');
    const other = await addUser('other@example.test');
    const uploads = store.dashboard;
    const bytes = (count: number) => Buffer.alloc(count, 'a');
    const first = (await uploads.createUpload(owner, 'first.csv', bytes(600), 1_000))!;
    // Over the cap with what the account keeps already: nothing kept. Another account's cap is its own.
    expect(await uploads.createUpload(owner, 'big.csv', bytes(500), 1_000)).toBeUndefined();
    const others = (await uploads.createUpload(other, 'other.csv', bytes(900), 1_000))!;
    later(1_000);
    const second = (await uploads.createUpload(owner, 'second.csv', bytes(400), 1_000))!;
    expect(await uploads.pendingUploads(owner)).toMatchObject([
      { id: second, fileName: 'second.csv', bytes: 400 },
      { id: first, fileName: 'first.csv', bytes: 600 },
    ]);

    // Submitted: no longer listed nor counted, and it goes with its job only.
    const jobId = await createJob(owner, ['a@x.test']);
    await uploads.attachUploadToJob(owner, first, jobId, '1');
    expect((await uploads.pendingUploads(owner)).map((upload) => upload.id)).toEqual([second]);
    expect(await uploads.createUpload(owner, 'third.csv', bytes(600), 1_000)).toBeDefined();
    expect(await uploads.deleteUpload(owner, first)).toBe(false);
    expect(await uploads.findUpload(owner, first)).toBeDefined();

    expect(await uploads.deleteUpload(other, second)).toBe(false);
    expect(await uploads.deleteUpload(owner, second)).toBe(true);
    expect(await uploads.findUpload(owner, second)).toBeUndefined();
    expect(await uploads.deleteUpload(owner, second)).toBe(false);

    // Past the retention: the uploads never submitted made before the cutoff, oldest first; the submitted one stays.
    later(1_000);
    const cutoff = clock.toISOString();
    const recent = (await uploads.createUpload(other, 'recent.csv', bytes(10)))!;
    expect(await uploads.deleteUploadsBefore(cutoff, 1)).toBe(1);
    expect(await uploads.findUpload(other, others)).toBeUndefined();
    expect(await uploads.deleteUploadsBefore(cutoff, 10)).toBe(1);
    expect(await uploads.pendingUploads(owner)).toEqual([]);
    expect((await uploads.pendingUploads(other)).map((upload) => upload.id)).toEqual([recent]);
    expect(await uploads.findUpload(owner, first)).toBeDefined();
  });

  it('has the retention loop delete an upload never submitted once it is older than the upload retention', { timeout: 20_000 }, async () => {
    const owner = await addUser('owner@example.test');
    // On the real clock, as serve runs it.
    const live = await place.open();
    const uploadId = (await live.dashboard.createUpload(owner, 'later.csv', Buffer.from('email\na@x.test\n')))!;
    const log = { info: () => undefined, error: () => undefined };
    const deleteUploads = (before: string, limit: number) => live.dashboard.deleteUploadsBefore(before, limit);
    const retention = startMaintenance([retentionService('upload_retention', deleteUploads, 1_000, log, 'uploaded lists never submitted')], { log });
    try {
      expect(await live.dashboard.findUpload(owner, uploadId)).toBeDefined();
      await expect.poll(() => live.dashboard.findUpload(owner, uploadId), { timeout: 10_000, interval: 200 }).toBeUndefined();
    } finally {
      await retention.stop();
    }
  });

  it('deletes finished jobs past the retention, oldest first and at most as many as asked; unfinished and newer ones stay', async () => {
    const owner = await addUser('owner@example.test');
    const oldest = await completedJob(owner, ['a@x.test']);
    later(1_000);
    const older = await completedJob(owner, ['b@x.test']);
    later(1_000);
    const recent = await completedJob(owner, ['d@x.test']);
    // Created long before the cutoff, but not finished: kept.
    const unfinished = await createJob(owner, ['c@x.test']);
    const cutoff = new Date(clock.getTime() - 1).toISOString();
    later(86_400_000);

    expect(await store.jobs.deleteFinishedBefore(cutoff, 1)).toBe(1);
    expect(await rowsOf(oldest)).toEqual({ items: 0, jobs: 0, uploads: 0 });
    expect(await rowsOf(older)).toMatchObject({ items: 1, jobs: 1 });
    expect(await store.jobs.deleteFinishedBefore(cutoff, 10)).toBe(1);
    expect(await rowsOf(older)).toMatchObject({ items: 0, jobs: 0 });
    expect(await store.jobs.deleteFinishedBefore(cutoff, 10)).toBe(0);
    expect((await store.jobs.listJobs(owner, 10)).map((job) => job.id).sort()).toEqual([unfinished, recent].sort());
    expect(await rowsOf(unfinished)).toMatchObject({ items: 1, jobs: 1 });
  });

  it('deletes a user with everything of theirs, and nothing of anyone else', async () => {
    const leaving = await addUser('leaving@example.test');
    const staying = await addUser('staying@example.test');
    for (const userId of [leaving, staying]) {
      await store.tokens.createApiToken(userId, 'ci', hashApiToken(`mv_token_of_${userId}`));
      await completedJob(userId, [`someone${userId}@x.test`]);
      await store.webhooks.createEndpoint(userId, { url: 'https://hooks.example.test/', description: null, secret: 'whsec_c2VjcmV0' });
    }
    const fresh = clock.getTime() + 86_400_000;
    await store.resultCache.remember([
      { addressKey: 'shared@x.test', userId: leaving, result: result('shared@x.test'), verifiedAt: clock.toISOString(), freshUntil: fresh },
      { addressKey: 'shared@x.test', userId: staying, result: result('shared@x.test'), verifiedAt: clock.toISOString(), freshUntil: fresh },
    ]);

    expect(await store.accounts.deleteUser(leaving)).toBe(true);
    expect(await store.accounts.findUserById(leaving)).toBeUndefined();
    expect(await store.tokens.findApiTokenByHash(hashApiToken(`mv_token_of_${leaving}`))).toBeUndefined();
    expect(await store.accounts.ledger(leaving)).toEqual([]);
    expect(await store.webhooks.listEndpoints(leaving)).toEqual([]);
    expect((await store.resultCache.recall(['shared@x.test'], clock.getTime(), leaving)).size).toBe(0);
    const left = async (table: string) => Number((await place.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE user_id = ${leaving}`))[0]!.n);
    for (const table of ['jobs', 'ledger', 'api_tokens', 'webhook_endpoints', 'result_cache']) expect(await left(table), table).toBe(0);
    expect(Number((await place.query<{ n: number }>('SELECT count(*) AS n FROM job_items'))[0]!.n)).toBe(1);

    expect(await store.tokens.findApiTokenByHash(hashApiToken(`mv_token_of_${staying}`))).toBeDefined();
    expect(await store.jobs.listJobs(staying, 10)).toHaveLength(1);
    expect(await store.webhooks.listEndpoints(staying)).toHaveLength(1);
    expect((await store.resultCache.recall(['shared@x.test'], clock.getTime(), staying)).size).toBe(1);
    expect(await store.accounts.deleteUser(leaving)).toBe(false);
  });
});
