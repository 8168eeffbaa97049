import { CLAIMED, claimIsAbandoned, replayedJob } from '../records.js';
import {
  StoreError,
  type ChargeOutcome,
  type IdempotencyKey,
  type IdempotencyRecord,
  type JobCreation,
  type JobDetails,
  type KeyedCharge,
  type LedgerEntry,
} from '../model.js';
import { step, type Awaitable, type Flow } from './flow.js';

/** The statements a flow that moves credits runs, inside one transaction. */
export interface CreditSteps {
  /**
   * Holds the user's row until the transaction ends, so that of two requests with one
   * Idempotency-Key (on any nodes) the second reads the key only after the first has claimed it.
   * (SQLite's IMMEDIATE transaction holds the whole file already.)
   */
  lockUser(userId: number): Awaitable<void>;
  /** The balance, or undefined when there is no such user. */
  balanceOf(userId: number): Awaitable<number | undefined>;
  /** The new balance, or undefined (and nothing written) when the balance does not cover `amount`; writes the ledger. */
  takeCredits(userId: number, amount: number, reason: LedgerEntry['reason'], jobId: string | null): Awaitable<number | undefined>;
  /** The claim or response holding this key within its 24 h, whatever request it was for. */
  keyRecord(userId: number, key: IdempotencyKey): Awaitable<IdempotencyRecord | undefined>;
  /** Writes a claim or a response for a key, replacing what held it. */
  writeKey(record: Omit<IdempotencyRecord, 'createdAt'>): Awaitable<void>;
}

/** The statements of creating a job, beyond those of moving credits. */
export interface JobSteps extends CreditSteps {
  insertJob(job: { id: string; userId: number; name: string | null; fresh: boolean; total: number; createdAt: string; completedAt: string | null }): Awaitable<void>;
  /** The job's items, positions following the list's order, each with its domain. */
  insertItems(jobId: string, emails: readonly string[], domains: readonly string[]): Awaitable<void>;
  /** Prunes records past their 24 h, then writes this response for its key. */
  saveKey(record: Omit<IdempotencyRecord, 'createdAt'>): Awaitable<void>;
}

function* liveKey(steps: CreditSteps, userId: number, key: IdempotencyKey): Flow<IdempotencyRecord | undefined> {
  const held = yield* step(steps.keyRecord(userId, key));
  if (held && held.requestHash !== key.requestHash) {
    throw new StoreError('idempotency_conflict', `Idempotency-Key ${key.key} was used with another request`);
  }
  return held;
}

function* shortOf(steps: CreditSteps, userId: number, required: number): Flow<{ ok: false; balance: number; required: number }> {
  const balance = yield* step(steps.balanceOf(userId));
  if (balance === undefined) throw new StoreError('user_not_found', `no user with id ${userId}`);
  return { ok: false, balance, required };
}

export function* charge(steps: CreditSteps, userId: number, amount: number, reason: 'verify', jobId: string | null): Flow<ChargeOutcome> {
  const taken = yield* step(steps.takeCredits(userId, amount, reason, jobId));
  return taken === undefined ? yield* shortOf(steps, userId, amount) : { ok: true, balance: taken };
}

/** See AccountStore.chargeWithKey: exactly one of identical keyed requests is charged and runs. */
export function* chargeWithKey(steps: CreditSteps, userId: number, amount: number, reason: 'verify', key: IdempotencyKey, now: Date): Flow<KeyedCharge> {
  const claim = { userId, ...key, statusCode: CLAIMED, body: '' };
  yield* step(steps.lockUser(userId));
  const held = yield* liveKey(steps, userId, key);
  if (held) {
    if (held.statusCode !== CLAIMED) return { kind: 'recorded', record: held };
    if (!claimIsAbandoned(held, now)) return { kind: 'running' };
    // The claim of a run that died after charging: that charge pays for this run, which claims the key afresh.
    yield* step(steps.writeKey(claim));
    return { kind: 'charged', balance: (yield* step(steps.balanceOf(userId)))! };
  }
  const balance = yield* step(steps.takeCredits(userId, amount, reason, null));
  if (balance === undefined) {
    const short = yield* shortOf(steps, userId, amount);
    return { kind: 'short', balance: short.balance, required: short.required };
  }
  yield* step(steps.writeKey(claim));
  return { kind: 'charged', balance };
}

export interface NewJob {
  id: string;
  userId: number;
  emails: readonly string[];
  domains: readonly string[];
  createdAt: string;
  details?: JobDetails;
  idempotency?: IdempotencyKey;
}

/** See JobStore.createJob: charged, created and acknowledged all at once, or replayed, or nothing. */
export function* createJob(steps: JobSteps, job: NewJob): Flow<JobCreation> {
  const { id, userId, emails, idempotency } = job;
  if (idempotency) {
    // The user's row is held until commit: a repeat of the key on any node waits, then finds this job.
    yield* step(steps.lockUser(userId));
    const earlier = yield* liveKey(steps, userId, idempotency);
    if (earlier) return replayedJob(earlier);
  }
  if ((yield* step(steps.takeCredits(userId, emails.length, 'bulk', id))) === undefined) return yield* shortOf(steps, userId, emails.length);
  const completedAt = emails.length === 0 ? job.createdAt : null;
  yield* step(steps.insertJob({ id, userId, name: job.details?.name ?? null, fresh: job.details?.fresh ?? false, total: emails.length, createdAt: job.createdAt, completedAt }));
  yield* step(steps.insertItems(id, emails, job.domains));
  if (idempotency) {
    yield* step(steps.saveKey({ userId, ...idempotency, statusCode: 200, body: JSON.stringify({ jobId: id, queued: emails.length }) }));
  }
  return { ok: true, jobId: id, queued: emails.length, replayed: false };
}
