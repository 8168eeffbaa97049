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
  /** Set when the receiver answered 410 Gone: nothing more is sent to it. */
  disabledAt: string | null;
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
  leaseMs: number;
  /** The claiming runner's holder id: its deliveries are taken over at once when it is gone. */
  holder: string;
}

/** What became of an attempt, and so of the delivery (decided by webhooks/retry-schedule.ts). */
export interface AttemptRecord {
  lease: string;
  attempt: Omit<WebhookAttempt, 'eventId' | 'attemptedAt'>;
  /** `retry`: try again `retryInMs` from now; `delivered`, `failed` (no tries left): done; `disable`: the endpoint said 410. */
  next: { kind: 'retry'; retryInMs: number } | { kind: 'delivered' | 'failed' | 'disable' };
}
