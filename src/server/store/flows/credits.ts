import { CLAIMED, claimIsAbandoned, replayedJob } from '../rows/idempotency.js';
import {
  StoreError,
  type ChargeOutcome,
  type IdempotencyKey,
  type KeyedResponse,
  type JobCreation,
  type JobDetails,
  type KeyedCharge,
  type KeyedEnd,
  type LedgerEntry,
  type PaidCharge,
  type Refund,
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
  /** The new balance and the charge's ledger row, or undefined (and nothing written) when the balance does not cover `amount`. */
  takeCredits(
    userId: number,
    amount: number,
    reason: LedgerEntry['reason'],
    jobId: string | null,
  ): Awaitable<{ balance: number; chargeId: number } | undefined>;
  /** The claim or response holding this key within its 24 h, whatever request it was for. */
  keyRecord(userId: number, key: IdempotencyKey): Awaitable<KeyedResponse | undefined>;
  /** Writes a claim or a response for a key, replacing what held it. */
  writeKey(record: Omit<KeyedResponse, 'createdAt'>): Awaitable<void>;
}

/** The statements of giving a charge back, beyond those of moving credits. */
export interface RefundSteps extends CreditSteps {
  /** Whether a refund row names this charge already. */
  isRefunded(chargeId: number): Awaitable<boolean>;
  /** Gives `amount` back with a refund ledger row naming the charge (`refundOf`, unique); the new balance. */
  giveBack(userId: number, amount: number, refundOf: number | null): Awaitable<number>;
  /** Drops the key's claim (never a recorded response). */
  releaseClaim(userId: number, key: IdempotencyKey): Awaitable<void>;
}

/** The statements of creating a job, beyond those of moving credits. */
export interface JobSteps extends CreditSteps {
  insertJob(job: {
    id: string;
    userId: number;
    name: string | null;
    fresh: boolean;
    total: number;
    createdAt: string;
    completedAt: string | null;
    /** JobDetails.settleWithinSeconds after createdAt (epoch ms), or null. */
    settleBy: number | null;
    sandbox: boolean;
  }): Awaitable<void>;
  /** The job's items, positions following the list's order, each with its domain. */
  insertItems(jobId: string, emails: readonly string[], domains: readonly string[]): Awaitable<void>;
  /** Prunes records past their 24 h, then writes this response for its key. */
  saveKey(record: Omit<KeyedResponse, 'createdAt'>): Awaitable<void>;
}

function* liveKey(steps: CreditSteps, userId: number, key: IdempotencyKey): Flow<KeyedResponse | undefined> {
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
  return taken === undefined ? yield* shortOf(steps, userId, amount) : { ok: true, ...taken };
}

/** See AccountStore.chargeWithKey: exactly one of identical keyed requests is charged and runs. */
export function* chargeWithKey(steps: CreditSteps, userId: number, amount: number, reason: 'verify', key: IdempotencyKey, now: Date): Flow<KeyedCharge> {
  const claim = (chargeId: number | null) => ({ userId, ...key, statusCode: CLAIMED, body: '', chargeId });
  yield* step(steps.lockUser(userId));
  const held = yield* liveKey(steps, userId, key);
  if (held) {
    if (held.statusCode !== CLAIMED) return { kind: 'recorded', record: held };
    if (!claimIsAbandoned(held, now)) return { kind: 'running' };
    // The claim of a run that died after charging: that charge pays for this run, which claims the key
    // afresh. A run whose charge was given back ended its claim in the refund's transaction (see refund).
    const chargeId = held.chargeId ?? null;
    yield* step(steps.writeKey(claim(chargeId)));
    return { kind: 'charged', balance: (yield* step(steps.balanceOf(userId)))!, chargeId };
  }
  const taken = yield* step(steps.takeCredits(userId, amount, reason, null));
  if (taken === undefined) {
    const short = yield* shortOf(steps, userId, amount);
    return { kind: 'short', balance: short.balance, required: short.required };
  }
  yield* step(steps.writeKey(claim(taken.chargeId)));
  return { kind: 'charged', ...taken };
}

/**
 * See AccountStore.refund: a charge is given back once (a retry finds its refund row and gives
 * nothing), and a keyed request's end is written with it, so that the key never stays claimed on a
 * refunded charge (whose takeover would run free).
 */
export function* refund(steps: RefundSteps, userId: number, charge: PaidCharge, end?: KeyedEnd): Flow<Refund> {
  // Two refunds of one charge on two nodes: the second reads the first's row only after it committed.
  yield* step(steps.lockUser(userId));
  const done = charge.id !== null && (yield* step(steps.isRefunded(charge.id)));
  const balance = done ? yield* step(steps.balanceOf(userId)) : yield* step(steps.giveBack(userId, charge.amount, charge.id));
  if (balance === undefined) throw new StoreError('user_not_found', `no user with id ${userId}`);
  if (end?.response) yield* step(steps.writeKey({ userId, ...end.key, ...end.response, chargeId: null }));
  else if (end) yield* step(steps.releaseClaim(userId, end.key));
  return { refunded: done ? 0 : charge.amount, balance };
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
  // A sandbox job costs nothing (docs/api.md "Sandbox"): no charge, no ledger row.
  const sandbox = job.details?.sandbox ?? false;
  if (!sandbox && (yield* step(steps.takeCredits(userId, emails.length, 'bulk', id))) === undefined) return yield* shortOf(steps, userId, emails.length);
  const completedAt = emails.length === 0 ? job.createdAt : null;
  yield* step(
    steps.insertJob({
      id,
      userId,
      name: job.details?.name ?? null,
      fresh: job.details?.fresh ?? false,
      total: emails.length,
      createdAt: job.createdAt,
      completedAt,
      settleBy: job.details?.settleWithinSeconds === undefined ? null : Date.parse(job.createdAt) + job.details.settleWithinSeconds * 1_000,
      sandbox,
    }),
  );
  yield* step(steps.insertItems(id, emails, job.domains));
  if (idempotency) {
    yield* step(steps.saveKey({ userId, ...idempotency, statusCode: 200, body: JSON.stringify({ jobId: id, queued: emails.length }) }));
  }
  return { ok: true, jobId: id, queued: emails.length, replayed: false };
}
