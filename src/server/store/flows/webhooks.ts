import {
  ENDPOINT_FAILING_DISABLES_AFTER_MS,
  GONE_REASON,
  type AttemptOutcome,
  type DueDelivery,
  type VerdictCount,
  type WebhookAttempt,
  type WebhookEvent,
} from '../store.js';
import { jobCompletedEvent } from '../webhook-events.js';
import { step, type Awaitable, type Flow } from './flow.js';

/** The statements of announcing a job's completion, inside the transaction that completed it. */
export interface AnnounceSteps {
  /** The job's owner and size. */
  jobOwner(jobId: string): Awaitable<{ userId: number; total: number }>;
  /** The ids of the owner's endpoints that take events (not removed, not disabled). */
  liveEndpoints(userId: number): Awaitable<string[]>;
  /** How many of the job's results have each verdict. */
  verdictCounts(jobId: string): Awaitable<VerdictCount[]>;
  /** A delivery of the event to the endpoint, due at once. */
  enqueueDelivery(endpointId: string, event: WebhookEvent): Awaitable<void>;
}

/**
 * One `bulk_job.completed` delivery per live endpoint of the job's owner. Run by saveResults in the
 * transaction whose results complete the job, and only then: a job completes once, so its event is
 * enqueued exactly once, whichever node wrote the last result, and never for a rolled-back batch.
 */
export function* announceCompletion(steps: AnnounceSteps, jobId: string, now: Date): Flow<void> {
  const { userId, total } = yield* step(steps.jobOwner(jobId));
  const endpoints = yield* step(steps.liveEndpoints(userId));
  if (endpoints.length === 0) return;
  const event = jobCompletedEvent({ id: jobId, total, counts: yield* step(steps.verdictCounts(jobId)) }, now);
  for (const endpoint of endpoints) yield* step(steps.enqueueDelivery(endpoint, event));
}

/** The statements of claiming deliveries, inside one transaction; `now` and expiries are the lease clock's epoch ms. */
export interface ClaimSteps {
  /** Deliveries under a live lease (not done, lease not expired), per account. */
  inFlight(now: number): Awaitable<{ userId: number; count: number }[]>;
  /** Each live endpoint that has a due delivery nobody holds, with its account and that delivery's due time (the oldest). */
  dueEndpoints(now: number): Awaitable<{ endpointId: string; userId: number; oldest: number }[]>;
  /** Up to `limit` of the endpoint's due deliveries nobody holds, oldest first. */
  dueOf(endpointId: string, now: number, limit: number): Awaitable<{ id: string; due: number }[]>;
  /** Leases these deliveries (those still due and unheld) to the claim: the ones it got. */
  lease(deliveryIds: readonly string[], now: number): Awaitable<DueDelivery[]>;
}

/**
 * See WebhookStore.claimDeliveries: fair across accounts as bulk work is (docs/architecture.md
 * "Webhooks"). An account's k-th delivery taken now has the place (its deliveries in flight + k),
 * none beyond `perAccount`; the claim takes the `max` lowest places, oldest due first within one,
 * so the account with the fewest in flight goes first and a claim of many takes from each in turn.
 * Only the first `max` accounts by (in flight, oldest due) can hold one of those places, so only
 * their endpoints are read: a claim costs the same whatever one account's backlog.
 */
export function* claimDeliveries(steps: ClaimSteps, { max, perAccount }: { max: number; perAccount: number }, now: number): Flow<DueDelivery[]> {
  const held = new Map((yield* step(steps.inFlight(now))).map(({ userId, count }) => [userId, count]));
  const accounts = new Map<number, { userId: number; held: number; oldest: number; endpoints: string[] }>();
  for (const { endpointId, userId, oldest } of yield* step(steps.dueEndpoints(now))) {
    const account = accounts.get(userId) ?? { userId, held: held.get(userId) ?? 0, oldest, endpoints: [] };
    account.oldest = Math.min(account.oldest, oldest);
    account.endpoints.push(endpointId);
    accounts.set(userId, account);
  }
  const turn = [...accounts.values()]
    .filter((account) => account.held < perAccount)
    .sort((a, b) => a.held - b.held || a.oldest - b.oldest || a.userId - b.userId)
    .slice(0, max);
  const places: { id: string; place: number; due: number }[] = [];
  for (const account of turn) {
    const room = perAccount - account.held;
    const due: { id: string; due: number }[] = [];
    for (const endpointId of account.endpoints) due.push(...(yield* step(steps.dueOf(endpointId, now, room))));
    due.sort((a, b) => a.due - b.due || a.id.localeCompare(b.id));
    due.slice(0, room).forEach((delivery, index) => places.push({ ...delivery, place: account.held + index + 1 }));
  }
  places.sort((a, b) => a.place - b.place || a.due - b.due || a.id.localeCompare(b.id));
  const chosen = places.slice(0, max).map((each) => each.id);
  return chosen.length === 0 ? [] : yield* step(steps.lease(chosen, now));
}

/** What a settled delivery's `outcome` column says: how it ended, or why it was stopped. */
type DeliveryOutcome = 'delivered' | 'failed' | 'disabled' | 'removed';

/** The delivery this lease held (its event and endpoint), or undefined when the lease no longer holds it. */
type Settled = { eventId: string; endpointId: string } | undefined;

/** The statements of recording an attempt, inside one transaction. */
export interface AttemptSteps {
  /** Counts the attempt and makes the delivery due again in `retryInMs`, freeing its lease. */
  retry(lease: string, retryInMs: number): Awaitable<Settled>;
  /** Counts the attempt and ends the delivery with `outcome`, freeing its lease. */
  finish(lease: string, outcome: DeliveryOutcome, at: string): Awaitable<Settled>;
  logAttempt(endpointId: string, attempt: WebhookAttempt): Awaitable<void>;
  /** Stops every delivery to the endpoint: the endpoint disabled for `reason`, its deliveries ended as `disabled`. */
  disableEndpoint(endpointId: string, at: string, reason: string): Awaitable<void>;
  /** The endpoint's attempt failed: since when it has been failing (this attempt's time when the last one succeeded, or there was none). */
  noteFailure(endpointId: string, at: string): Awaitable<string>;
  /** The endpoint's attempt succeeded: it is failing no more. */
  noteSuccess(endpointId: string): Awaitable<void>;
}

/** See WebhookStore.recordAttempt. */
export function* recordAttempt(steps: AttemptSteps, { lease, attempt, next }: AttemptOutcome, at: string): Flow<boolean> {
  const held = yield* step(
    next.kind === 'retry' ? steps.retry(lease, next.retryInMs) : steps.finish(lease, next.kind === 'disable' ? 'disabled' : next.kind, at),
  );
  if (!held) return false;
  yield* step(steps.logAttempt(held.endpointId, { ...attempt, eventId: held.eventId, attemptedAt: at }));
  if (next.kind === 'disable') {
    yield* step(steps.disableEndpoint(held.endpointId, at, GONE_REASON));
  } else if (next.kind === 'delivered') {
    yield* step(steps.noteSuccess(held.endpointId));
  } else {
    // Failing for days: disabled, so that its deliveries stop waiting and its owner is told why.
    const since = yield* step(steps.noteFailure(held.endpointId, at));
    if (Date.parse(at) - Date.parse(since) >= ENDPOINT_FAILING_DISABLES_AFTER_MS) {
      const days = ENDPOINT_FAILING_DISABLES_AFTER_MS / 86_400_000;
      yield* step(steps.disableEndpoint(held.endpointId, at, `No delivery to the endpoint succeeded for ${days} days (failing since ${since}).`));
    }
  }
  return true;
}
