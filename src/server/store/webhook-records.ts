import type { DueDelivery, WebhookAttempt, WebhookEndpoint, WebhookEndpointWithAttempts } from './webhook-model.js';

/** The webhook rows as both schemas hold them (the same columns), and their mapping to the Store's records (see records.ts). */

export interface EndpointRow {
  id: string;
  user_id: number;
  url: string;
  description: string | null;
  secret: string;
  created_at: string;
  disabled_at: string | null;
}

export interface AttemptRow {
  endpoint_id: string;
  event_id: string;
  attempted_at: string;
  status: number | null;
  latency_ms: number;
  error: string | null;
}

/** A claimed delivery joined with its endpoint. */
export interface DueRow {
  lease_token: string;
  id: string;
  event_id: string;
  event_type: DueDelivery['event']['type'];
  payload: string;
  attempts: number;
  endpoint_id: string;
  url: string;
  secret: string;
}

/** What settling a leased delivery returns: its event and endpoint. */
export interface SettledRow {
  event_id: string;
  endpoint_id: string;
}

/** A settled delivery as the attempt flow wants it; undefined when the lease held nothing any more. */
export const settled = (row: SettledRow | undefined) => row && { eventId: row.event_id, endpointId: row.endpoint_id };

/** How many attempts are kept per endpoint: what the list shows, with room; older ones are pruned as new ones come. */
export const ATTEMPTS_KEPT = 20;

export const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  userId: row.user_id,
  url: row.url,
  description: row.description,
  secret: row.secret,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
});

const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  eventId: row.event_id,
  attemptedAt: row.attempted_at,
  status: row.status,
  latencyMs: row.latency_ms,
  error: row.error,
});

/** Endpoints with their attempts (rows newest first, at most `listed` per endpoint). */
export function withAttempts(endpoints: readonly EndpointRow[], attempts: readonly AttemptRow[], listed: number): WebhookEndpointWithAttempts[] {
  return endpoints.map((row) => ({
    ...toEndpoint(row),
    attempts: attempts
      .filter((attempt) => attempt.endpoint_id === row.id)
      .slice(0, listed)
      .map(toAttempt),
  }));
}

export const toDueDelivery = (row: DueRow): DueDelivery => ({
  lease: row.lease_token,
  deliveryId: row.id,
  event: { id: row.event_id, type: row.event_type, payload: row.payload },
  endpoint: { id: row.endpoint_id, url: row.url, secret: row.secret },
  attempts: row.attempts,
});
