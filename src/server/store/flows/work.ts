import { randomUUID } from 'node:crypto';
import { refundable } from '../refund-rule.js';
import type { CacheEntry, ClaimRequest, LeasedResult, SavedResults, SavePolicy, WorkChunk } from '../model.js';
import { fairOrder, type CandidateJob } from '../fair-order.js';
import { step, type Awaitable, type Flow } from './flow.js';
import { announceCompletion, type AnnounceSteps } from './webhooks.js';

/** An item as a claim leases it: where, what, and its tries so far (PostgreSQL's bigint as a number). */
export interface LeasedItemRow {
  position: number;
  email: string;
  attempts: number;
  first_answered_at: number | null;
}

/** The statements of claiming work, inside one transaction. `now` and expiries are epoch milliseconds. */
export interface ClaimSteps {
  /** Every unfinished job with its items in flight (leased, lease not expired). */
  candidates(now: number): Awaitable<CandidateJob[]>;
  /** The domain of the job's first item never leased or released (by domain), after `after` when given. */
  nextFreeDomain(jobId: string, after?: string): Awaitable<string | undefined>;
  /** The first domain, not one of `skip`, of the job's items whose lease has expired. */
  firstExpiredDomain(jobId: string, now: number, skip: readonly string[]): Awaitable<string | undefined>;
  /** Leases up to `limit` claimable items of the job at the domain to `holder`, in position order. */
  leaseItems(
    jobId: string,
    domain: string,
    lease: { token: string; holder: string | null; expiresAt: number },
    now: number,
    limit: number,
  ): Awaitable<LeasedItemRow[]>;
}

/**
 * The job's first claimable domain (by domain) not one of `skip`: a seek per skipped domain among
 * the free items, never a walk over their items, and the expired leases (few) apart.
 */
function* firstDomain(steps: ClaimSteps, jobId: string, now: number, skip: readonly string[]): Flow<string | undefined> {
  let free = yield* step(steps.nextFreeDomain(jobId));
  while (free !== undefined && skip.includes(free)) free = yield* step(steps.nextFreeDomain(jobId, free));
  const expired = yield* step(steps.firstExpiredDomain(jobId, now, skip));
  if (free === undefined || expired === undefined) return free ?? expired;
  return expired < free ? expired : free;
}

/** See WorkQueue.claimWork: the fair order decides whose job, the first claimable domain of it the chunk. */
export function* claimWork(
  steps: ClaimSteps,
  { maxItems, leaseMs, skipDomains = [], skipUsers = [], onlyJobs, holder }: ClaimRequest,
  now: number,
): Flow<WorkChunk | undefined> {
  for (const job of fairOrder(yield* step(steps.candidates(now)))) {
    if (skipUsers.includes(job.user_id) || (onlyJobs && !onlyJobs.includes(job.id))) continue;
    const domain = yield* firstDomain(steps, job.id, now, skipDomains);
    if (domain === undefined) continue;
    const lease = randomUUID();
    const rows = yield* step(steps.leaseItems(job.id, domain, { token: lease, holder: holder ?? null, expiresAt: now + leaseMs }, now, maxItems));
    const items = rows
      .sort((a, b) => a.position - b.position)
      .map((row) => ({ jobId: job.id, position: row.position, email: row.email, attempts: row.attempts, firstAnsweredAt: row.first_answered_at }));
    return { lease, jobId: job.id, userId: job.user_id, fresh: Boolean(job.fresh), domain, items, settleBy: job.settle_by, sandbox: Boolean(job.sandbox) };
  }
  return undefined;
}

/** The statements of writing results, inside one transaction (announcing the jobs they complete included). */
export interface ResultSteps extends AnnounceSteps {
  /**
   * Writes each result whose item has none yet and is held by the result's lease (an item keeps its
   * first result; only the lease holding it may write it); says of each whether it was written. A
   * result with `dueAt` is a temporary answer: written with that due time, the item's attempts
   * counted and its first answer's time kept (`answeredAt` when it is the first), so that it is
   * claimable again only once due (WorkQueue.wakeDue).
   */
  writeResults(results: readonly LeasedResult[], answeredAt: number): Awaitable<boolean[]>;
  /** Keeps verdicts in the result cache (ResultCacheStore.remember), in this transaction. */
  rememberVerdicts(entries: readonly CacheEntry[]): Awaitable<void>;
  /** Adds `written` to the job's processed count, completing it when that reaches its total; true when this completed it. */
  countProcessed(jobId: string, written: number, completedAt: string): Awaitable<boolean>;
  /** How many of the job's stored results are `unknown`, by reason code. */
  unknownsOf(jobId: string): Awaitable<{ reasonCode: string; count: number }[]>;
  /** Whether the job is a sandbox job, which was charged nothing and so is refunded nothing. */
  isSandbox(jobId: string): Awaitable<boolean>;
  /** Gives `amount` credits back to the job's owner, with a ledger row naming the job. */
  refundToOwner(jobId: string, amount: number): Awaitable<void>;
}

/**
 * See WorkQueue.saveResults. A result `unknown` because of the verifier's own condition (its port
 * 25, resolver or proxy: VERIFIER_CONDITIONS) is refunded as it is written, in the same
 * transaction: an item is written once, so it is refunded once, whichever node wrote it. With
 * `refundUnknown`, the job's other unknowns are refunded in the transaction that completes it, in
 * one ledger row, and the completion is announced to its owner's webhooks in that transaction too:
 * a job completes once, so both happen once, whichever node completed it. A verdict to keep goes to
 * the result cache only with its written result, checked under the item's lease in this transaction:
 * a deleted job's runner leaves nothing of its addresses behind.
 */
export function* saveResults(steps: ResultSteps, results: readonly LeasedResult[], completedAt: string, policy: SavePolicy = {}): Flow<SavedResults> {
  const saved = { completedJobs: 0, refunded: 0 };
  if (results.length === 0) return saved;
  const perJob = new Map<string, { written: number; refund: number }>();
  const written = yield* step(steps.writeResults(results, Date.parse(completedAt)));
  // A verdict is kept only with its written result: one for an item deleted meanwhile (or taken over) leaves nothing behind.
  const kept = results.flatMap(({ keep }, index) => (written[index] && keep ? [keep] : []));
  if (kept.length > 0) yield* step(steps.rememberVerdicts(kept));
  for (const [index, { jobId, result, dueAt }] of results.entries()) {
    // A temporary answer settles nothing: neither processed nor refunded until the item's last answer.
    if (!written[index] || dueAt !== undefined) continue;
    const counts = perJob.get(jobId) ?? { written: 0, refund: 0 };
    counts.written += 1;
    // What is refundable whatever the policy is given back as it is written; the rest of what the policy adds, at completion.
    if (refundable(result)) counts.refund += 1;
    perJob.set(jobId, counts);
  }
  // In one order on every node, so that two batches touching the same jobs cannot deadlock.
  for (const jobId of [...perJob.keys()].sort()) {
    const { written: count, refund } = perJob.get(jobId)!;
    const completed = yield* step(steps.countProcessed(jobId, count, completedAt));
    if (refund > 0) yield* step(steps.refundToOwner(jobId, refund));
    saved.refunded += refund;
    if (completed && policy.refundUnknown && !(yield* step(steps.isSandbox(jobId)))) {
      const unknowns = yield* step(steps.unknownsOf(jobId));
      const owed = unknowns.filter(({ reasonCode }) => !refundable({ result: 'unknown', reasonCode })).reduce((sum, { count }) => sum + count, 0);
      if (owed > 0) yield* step(steps.refundToOwner(jobId, owed));
      saved.refunded += owed;
    }
    if (completed) {
      saved.completedJobs += 1;
      yield* announceCompletion(steps, jobId, new Date(completedAt));
    }
  }
  return saved;
}

/** The statements of taking over the leases of holders that are gone, inside one transaction. */
export interface RescueSteps {
  /** The holders named on live leases (not expired, of items without a result or of webhook deliveries not done). */
  holdersWithLeases(now: number): Awaitable<string[]>;
  /** Whether the holder still exists (its session, its process). */
  isAlive(holder: string): Awaitable<boolean>;
  /** Frees every unanswered item leased to these holders; returns how many. */
  releaseHeldBy(holders: readonly string[]): Awaitable<number>;
  /** Frees every webhook delivery not done leased to these holders (its next attempt is then due, from any node). */
  releaseDeliveriesHeldBy(holders: readonly string[]): Awaitable<number>;
}

/** See WorkQueue.rescue: one liveness check per holder, for its work items and its webhook deliveries alike. */
export function* rescue(steps: RescueSteps, now: number): Flow<number> {
  const gone: string[] = [];
  for (const holder of yield* step(steps.holdersWithLeases(now))) if (!(yield* step(steps.isAlive(holder)))) gone.push(holder);
  if (gone.length === 0) return 0;
  yield* step(steps.releaseDeliveriesHeldBy(gone));
  return yield* step(steps.releaseHeldBy(gone));
}
