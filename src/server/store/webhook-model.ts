/** The webhook records the store hands out and takes (see WebhookStore in store.ts). */

/** An account's registered receiver of events. The secret is kept: every delivery is signed with it. */
export interface WebhookEndpoint {
  id: string;
  userId: number;
  url: string;
  description: string | null;
  /** `whsec_` and the base64 key (Standard Webhooks). */
  secret: string;
  createdAt: string;
  /** Set when the receiver answered 410 Gone, or no delivery to it succeeded for ENDPOINT_FAILING_DISABLES_AFTER_MS: nothing more is sent to it. */
  disabledAt: string | null;
  /** Why it was disabled, in words for its owner. */
  disabledReason: string | null;
}

/** One try of one delivery, as the endpoint list shows it. */
export interface WebhookAttempt {
  eventId: string;
  attemptedAt: string;
  /** The receiver's HTTP status; null when there was none (refused, timed out, connection lost). */
  status: number | null;
  latencyMs: number;
  /** Why there was no status, in words. */
  error: string | null;
}

export interface WebhookEndpointWithAttempts extends WebhookEndpoint {
  /** The newest attempts first, at most WEBHOOK_ATTEMPTS_LISTED. */
  attempts: WebhookAttempt[];
}

/** See DeliveryClaim.perAccount. */
export const DELIVERIES_IN_FLIGHT_PER_ACCOUNT = 4;

/**
 * An endpoint none of whose deliveries succeeded for this long is disabled (as svix does): its
 * owner sees why, and its deliveries stop waiting in everyone's backlog.
 */
export const ENDPOINT_FAILING_DISABLES_AFTER_MS = 5 * 86_400_000;

/** Words for an endpoint disabled because it answered 410 Gone. */
export const GONE_REASON = 'The endpoint answered 410 Gone.';

/** The due deliveries, for metrics: how many, and since when the oldest has been due (epoch ms of the store's clock; null when none). */
export interface DeliveryBacklog {
  due: number;
  oldestDueAt: number | null;
}

/** How many attempts an endpoint list carries per endpoint. */
export const WEBHOOK_ATTEMPTS_LISTED = 5;

/** An event to send: what the receiver gets as the body, and its id (the `webhook-id`, the same on every retry). */
export interface WebhookEvent {
  id: string;
  type: 'bulk_job.completed' | 'webhook.test';
  /** The JSON body, `{type, timestamp, data}`, as it is sent on every attempt. */
  payload: string;
}

/** A delivery claimed under a lease: one event for one endpoint. */
export interface DueDelivery {
  lease: string;
  deliveryId: string;
  event: WebhookEvent;
  endpoint: Pick<WebhookEndpoint, 'id' | 'url' | 'secret'>;
  /** Attempts made before this one. */
  attempts: number;
}

export interface DeliveryClaim {
  max: number;
  /**
   * Deliveries one account may have in flight at once, on every node together
   * (DELIVERIES_IN_FLIGHT_PER_ACCOUNT when not given): an account whose receiver never answers
   * holds this many attempts at a time, never every slot.
   */
  perAccount?: number;
  leaseMs: number;
  /** The claiming runner's holder id: its deliveries are taken over at once when it is gone. */
  holder: string;
}

/** What became of an attempt, and so of the delivery (decided by webhooks/retry-schedule.ts). */
export interface AttemptOutcome {
  lease: string;
  attempt: Omit<WebhookAttempt, 'eventId' | 'attemptedAt'>;
  /** `retry`: try again `retryInMs` from now; `delivered`, `failed` (no tries left): done; `disable`: the endpoint said 410. */
  next: { kind: 'retry'; retryInMs: number } | { kind: 'delivered' | 'failed' | 'disable' };
}
