import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NOTHING_CHECKED, type VerificationResult } from '../../src/engine/core/types.js';
import { ResultBatcher } from '../../src/server/jobs/result-batcher.js';
import { openSqliteStore } from '../../src/server/store/open/sqlite-store.js';
import type { LeasedResult, Store, WorkChunk, WorkQueue } from '../../src/server/store/store.js';

// The runner's result batches on a real store: who waits behind whom when results pile up.

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function store(): Store {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailverify-batcher-'));
  const opened = openSqliteStore(dataDir);
  cleanup.push(
    () => rmSync(dataDir, { recursive: true, force: true }),
    () => opened.close(),
  );
  return opened;
}

async function chunkOf(on: Store, emails: string[]): Promise<WorkChunk> {
  const user = await on.accounts.createUser({
    email: `${emails[0]}.owner@example.test`,
    passwordHash: null,
    balance: emails.length,
    rateLimit: 20,
    rateWindowSeconds: 1,
  });
  const created = await on.jobs.createJob(user.id, emails);
  if (!created.ok) throw new Error('the job was not created');
  const chunk = await on.work.claimWork({ maxItems: 250, leaseMs: 60_000, skipUsers: [] });
  if (!chunk || chunk.jobId !== created.jobId) throw new Error('the job was not claimed');
  return chunk;
}

const invalid = (email: string): VerificationResult => ({
  email,
  result: 'invalid',
  reason: 'no such mailbox',
  reasonCode: 'mailbox_not_found',
  checks: NOTHING_CHECKED,
  notEstablished: [],
});
const resultsOf = (chunk: WorkChunk): LeasedResult[] =>
  chunk.items.map(({ email, position }) => ({ lease: chunk.lease, jobId: chunk.jobId, position, result: invalid(email) }));

describe('result batches', () => {
  it("write a small chunk's result in the next batch beside a large chunk's, not behind all of them", async () => {
    const on = store();
    const large = await chunkOf(
      on,
      Array.from({ length: 250 }, (_, index) => `large${index}@large.test`),
    );
    const small = await chunkOf(on, ['small@small.test']);
    // The store's own writes, in order, as the batcher hands them over.
    const batches: LeasedResult[][] = [];
    const queue: WorkQueue = Object.create(on.work, {
      saveResults: {
        value: (results: readonly LeasedResult[], policy?: unknown) => (batches.push([...results]), on.work.saveResults(results, policy as undefined)),
      },
    });
    const batcher = new ResultBatcher(queue, {
      batchSize: 100,
      flushIntervalMs: 60_000,
      maxKept: 1_000,
      retryMs: 1_000,
      onWriteError: (error) => {
        throw error;
      },
    });

    for (const result of resultsOf(large)) batcher.add(result);
    for (const result of resultsOf(small)) batcher.add(result);
    await batcher.flush(small.lease);

    // The first batch was on its way when the small result came; the next one carries it.
    const smallBatch = batches.findIndex((batch) => batch.some((each) => each.lease === small.lease));
    expect(smallBatch).toBe(1);
    await batcher.flush();
    expect(batches.flat()).toHaveLength(251);
    expect(new Set(batches.flat().map((each) => `${each.lease}:${each.position}`)).size).toBe(251);
    expect((await on.jobs.getJob(small.userId, small.jobId))?.status).toBe('completed');
  });

  it('go on being written after a flush found nothing left to write', async () => {
    const on = store();
    const first = await chunkOf(
      on,
      Array.from({ length: 100 }, (_, index) => `first${index}@first.test`),
    );
    const second = await chunkOf(on, ['second@second.test']);
    const batcher = new ResultBatcher(on.work, {
      batchSize: 100,
      flushIntervalMs: 60_000,
      maxKept: 1_000,
      retryMs: 1_000,
      onWriteError: (error) => {
        throw error;
      },
    });

    // A full batch writes the first chunk's results on its own; when the chunk then ends, its flush
    // (as the runner's) finds nothing waiting and nothing being written.
    for (const result of resultsOf(first)) batcher.add(result);
    await batcher.flush();
    await batcher.flush(first.lease);
    expect((await on.jobs.getJob(first.userId, first.jobId))?.status).toBe('completed');

    // The next chunk's results are still written: its flush settles (it never did) and its job completes.
    for (const result of resultsOf(second)) batcher.add(result);
    await batcher.flush(second.lease);
    expect((await on.jobs.getJob(second.userId, second.jobId))?.status).toBe('completed');
  });

  it('go out full while results come one by one during a write, not a few per transaction', async () => {
    const on = store();
    const chunk = await chunkOf(
      on,
      Array.from({ length: 250 }, (_, index) => `one${index}@one.test`),
    );
    // A store that answers two turns of the event loop later (as PostgreSQL does, later still): a
    // result comes in while each batch is written.
    const batches: number[] = [];
    const later = () => new Promise(setImmediate);
    const queue: WorkQueue = Object.create(on.work, {
      saveResults: {
        value: async (results: readonly LeasedResult[], policy?: unknown) => (
          batches.push(results.length),
          await later(),
          await later(),
          on.work.saveResults(results, policy as undefined)
        ),
      },
    });
    const batcher = new ResultBatcher(queue, {
      batchSize: 100,
      flushIntervalMs: 60_000,
      maxKept: 1_000,
      retryMs: 1_000,
      onWriteError: (error) => {
        throw error;
      },
    });

    for (const result of resultsOf(chunk)) {
      batcher.add(result);
      await later();
    }
    await batcher.flush(chunk.lease);

    // Two full batches as they filled, the rest when the chunk ended.
    expect(batches).toEqual([100, 100, 50]);
    expect((await on.jobs.getJob(chunk.userId, chunk.jobId))?.status).toBe('completed');
  });
});
