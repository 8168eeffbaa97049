import { ENDPOINT_FAILING_DISABLES_AFTER_MS, GONE_REASON, type AttemptRecord, type VerdictCount, type WebhookAttempt, type WebhookEvent } from '../store.js';
import { jobCompletedEvent } from '../../webhooks/events.js';
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
export function* recordAttempt(steps: AttemptSteps, { lease, attempt, next }: AttemptRecord, at: string): Flow<boolean> {
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
