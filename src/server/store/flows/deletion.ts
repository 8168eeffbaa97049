import { addressKey } from '../../../engine/checks/address-key.js';
import { cacheKeysOf } from '../rows/result-cache.js';
import { step, type Awaitable, type Flow } from './flow.js';

/** The statements of deleting a job, inside one transaction. */
export interface DeletionSteps {
  /** The addresses of the job's items. */
  emailsOf(jobId: string): Awaitable<string[]>;
  /** Drops the verdicts this user's jobs left in the result cache for these address keys. */
  forgetCached(userId: number, addressKeys: readonly string[]): Awaitable<void>;
  /**
   * Deletes the job's items (addresses and results), waiting for a batch of its results being
   * written elsewhere, so that what follows reads the job as that batch left it.
   */
  deleteItems(jobId: string): Awaitable<void>;
  /** The job when it is the user's (as committed now: read again after deleteItems, it counts every batch written). */
  jobOf(userId: number, jobId: string): Awaitable<{ total: number; processed: number; completed: boolean; sandbox: boolean } | undefined>;
  /** Deletes the job's row and what hangs on it (its uploaded file); the ledger's rows stay. */
  deleteJob(jobId: string): Awaitable<void>;
  /** Gives `amount` credits back to the user, with a ledger row naming the job. */
  refund(userId: number, amount: number, jobId: string): Awaitable<void>;
}

/**
 * See JobStore.deleteJob. The items go first: a runner's batch for the job either committed before
 * (and counts as processed, its verdicts kept) or finds no item to write and keeps no verdict. The
 * owner's cached verdicts about the addresses go after the items, so that they include what such a
 * batch kept. The addresses not verified by then were paid for at submission and are given back,
 * once: after this the job is gone.
 */
export function* deleteJob(steps: DeletionSteps, userId: number, jobId: string): Flow<{ refunded: number } | undefined> {
  const owned = yield* step(steps.jobOf(userId, jobId));
  if (!owned) return undefined;
  // Under either key (as asked, in any case), and the folded one unmarked that every verdict was kept under before.
  const keys = [...new Set((yield* step(steps.emailsOf(jobId))).flatMap((email) => [...cacheKeysOf(email), addressKey(email)]))];
  yield* step(steps.deleteItems(jobId));
  // The owner's verdicts about the job's addresses leave the shared cache too: they hold the addresses.
  if (keys.length > 0) yield* step(steps.forgetCached(userId, keys));
  const job = yield* step(steps.jobOf(userId, jobId));
  // Deleted meanwhile by another request: that one gave back what was owed.
  if (!job) return undefined;
  // A sandbox job was charged nothing, so nothing goes back.
  const refunded = job.completed || job.sandbox ? 0 : Math.max(0, job.total - job.processed);
  if (refunded > 0) yield* step(steps.refund(userId, refunded, jobId));
  yield* step(steps.deleteJob(jobId));
  return { refunded };
}
