import type { DueDelivery, WebhookAttempt, WebhookEndpoint, WebhookEndpointWithAttempts } from '../webhook-model.js';

/** The webhook rows as both schemas hold them (the same columns), and their mapping to the Store's records (see the other files here). */

export interface EndpointRow {
  id: string;
  user_id: number;
  url: string;
  description: string | null;
  secret: string;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
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

/** Due and held by nobody: its time has come, and it was never leased, was freed, or its lease ran out (both dialects; `now` is the placeholder). */
export const unheldDue = (now: string, table = 'webhook_deliveries') =>
  `${table}.done_at IS NULL AND ${table}.next_attempt_at <= ${now} AND (${table}.lease_token IS NULL OR ${table}.lease_expires_at <= ${now})`;

/** Deliveries in flight per account (both dialects). */
export const inFlightQuery = (now: string) =>
  `SELECT e.user_id AS "userId", count(*) AS count FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
   WHERE d.done_at IS NULL AND d.lease_token IS NOT NULL AND d.lease_expires_at > ${now} GROUP BY e.user_id`;

/**
 * Each live endpoint's oldest due delivery nobody holds: one seek of the endpoint's not-done
 * deliveries by due time, past the few it has in flight (both dialects).
 */
export const dueEndpointsQuery = (now: string) =>
  `SELECT * FROM (
     SELECT e.id AS "endpointId", e.user_id AS "userId",
       (SELECT d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = e.id AND d.done_at IS NULL AND (d.lease_token IS NULL OR d.lease_expires_at <= ${now})
        ORDER BY d.next_attempt_at LIMIT 1) AS oldest
     FROM webhook_endpoints e WHERE e.disabled_at IS NULL AND e.removed_at IS NULL
   ) AS endpoints WHERE oldest <= ${now}`;

/** An endpoint's due deliveries nobody holds, oldest first (both dialects' placeholders). */
export const dueOfQuery = (endpointId: string, now: string, limit: string) =>
  `SELECT id, next_attempt_at AS due FROM webhook_deliveries
   WHERE endpoint_id = ${endpointId} AND ${unheldDue(now)} ORDER BY next_attempt_at LIMIT ${limit}`;

/** The due deliveries' count and oldest due time (both dialects; `now` is the dialect's placeholder). */
export const backlogQuery = (now: string) =>
  `SELECT count(*) AS due, min(d.next_attempt_at) AS oldest FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
   WHERE ${unheldDue(now, 'd')} AND e.disabled_at IS NULL AND e.removed_at IS NULL`;

/** The `webhook.test` events of the endpoint's account enqueued after `since` (both dialects' placeholders). */
export const recentTestsQuery = (endpointId: string, since: string) =>
  `SELECT count(*) AS count FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
   WHERE e.user_id = (SELECT user_id FROM webhook_endpoints WHERE id = ${endpointId}) AND d.event_type = 'webhook.test' AND d.created_at > ${since}`;

/** What pruning after the retention deletes, in order (both dialects; `before` is the placeholder of an ISO timestamp). */
export const pruneStatements = (before: string) => [
  // A removed endpoint goes with what is left of its deliveries and attempts (ON DELETE CASCADE): its secret too.
  `DELETE FROM webhook_endpoints WHERE removed_at IS NOT NULL AND removed_at < ${before}`,
  `DELETE FROM webhook_deliveries WHERE done_at IS NOT NULL AND done_at < ${before}`,
  `DELETE FROM webhook_attempts WHERE attempted_at < ${before}`,
];

export const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  userId: row.user_id,
  url: row.url,
  description: row.description,
  secret: row.secret,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
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
