import { randomUUID } from 'node:crypto';
import * as flows from '../flows/webhooks.js';
import type { AnnounceSteps, AttemptSteps, ClaimSteps } from '../flows/webhooks.js';
import { runNow } from '../flows/flow.js';
import {
  DELIVERIES_IN_FLIGHT_PER_ACCOUNT,
  WEBHOOK_ATTEMPTS_LISTED,
  type AttemptOutcome,
  type DeliveryBacklog,
  type DeliveryClaim,
  type DueDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithAttempts,
  type WebhookEvent,
} from '../webhook-model.js';
import {
  ATTEMPTS_KEPT,
  backlogQuery,
  dueEndpointsQuery,
  dueOfQuery,
  inFlightQuery,
  pruneStatements,
  recentTestsQuery,
  unheldDue,
  settled,
  toDueDelivery,
  toEndpoint,
  withAttempts,
  type AttemptRow,
  type DueRow,
  type EndpointRow,
  type SettledRow,
} from '../rows/webhooks.js';
import type { Connection } from './database.js';
import type { SqliteJobs } from './jobs.js';

/** Webhook endpoints and the leased deliveries of events to them, on SQLite. */
export class SqliteWebhooks {
  private readonly sql;
  /** Used by SqliteWork.saveResults, inside its transaction. */
  readonly announceSteps: AnnounceSteps;
  private readonly attemptSteps: AttemptSteps;
  private readonly claimSteps: (lease: { holder: string; expiresAt: number }) => ClaimSteps;

  // A table of prepared statements and the steps built on them, one entry each: long, not deep.
  // eslint-disable-next-line max-lines-per-function
  constructor(
    private readonly connection: Connection,
    jobs: SqliteJobs,
  ) {
    const prepare = connection.prepare.bind(connection);
    const freeLease = 'lease_token = NULL, lease_holder = NULL, lease_expires_at = NULL';
    this.sql = {
      insertEndpoint: prepare<EndpointRow>(
        'INSERT INTO webhook_endpoints (id, user_id, url, description, secret, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
      ),
      endpointsOf: prepare<EndpointRow>('SELECT * FROM webhook_endpoints WHERE user_id = ? AND removed_at IS NULL ORDER BY created_at, id'),
      attemptsOf: prepare<AttemptRow>(
        `SELECT webhook_attempts.* FROM webhook_attempts JOIN webhook_endpoints ON webhook_endpoints.id = webhook_attempts.endpoint_id
         WHERE webhook_endpoints.user_id = ? AND webhook_endpoints.removed_at IS NULL ORDER BY webhook_attempts.id DESC`,
      ),
      endpointOf: prepare<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ? AND user_id = ? AND removed_at IS NULL'),
      removeEndpoint: prepare('UPDATE webhook_endpoints SET removed_at = ? WHERE id = ? AND user_id = ? AND removed_at IS NULL'),
      countEndpoints: prepare<{ count: number }>('SELECT count(*) AS count FROM webhook_endpoints WHERE user_id = ? AND removed_at IS NULL'),
      disableEndpoint: prepare('UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL'),
      noteFailure: prepare<{ failing_since: string }>(
        'UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING failing_since',
      ),
      noteSuccess: prepare('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?'),
      recentTests: prepare<{ count: number }>(recentTestsQuery('@endpointId', '@since')),
      backlog: prepare<{ due: number; oldest: number | null }>(backlogQuery('@now')),
      prune: pruneStatements('?').map((sql) => prepare(sql)),
      stopDeliveries: prepare(`UPDATE webhook_deliveries SET done_at = ?, outcome = ?, ${freeLease} WHERE endpoint_id = ? AND done_at IS NULL`),
      liveEndpoints: prepare<{ id: string }>('SELECT id FROM webhook_endpoints WHERE user_id = ? AND disabled_at IS NULL AND removed_at IS NULL'),
      jobOwner: prepare<{ userId: number; total: number }>('SELECT user_id AS userId, total FROM jobs WHERE id = ?'),
      insertDelivery: prepare(
        `INSERT INTO webhook_deliveries (id, event_id, event_type, endpoint_id, payload, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      inFlight: prepare<{ userId: number; count: number }>(inFlightQuery('?')),
      dueEndpoints: prepare<{ endpointId: string; userId: number; oldest: number }>(dueEndpointsQuery('@now')),
      dueOf: prepare<{ id: string; due: number }>(dueOfQuery('@endpointId', '@now', '@limit')),
      // One lease token per delivery (randomblob is drawn for each row).
      lease: prepare<Omit<DueRow, 'url' | 'secret'>>(
        `UPDATE webhook_deliveries SET lease_token = lower(hex(randomblob(16))), lease_holder = @holder, lease_expires_at = @expiresAt
         WHERE id IN (SELECT value FROM json_each(@ids)) AND ${unheldDue('@now')}
         RETURNING lease_token, id, event_id, event_type, payload, attempts, endpoint_id`,
      ),
      endpointsById: prepare<{ id: string; url: string; secret: string }>(
        'SELECT id, url, secret FROM webhook_endpoints WHERE id IN (SELECT value FROM json_each(?))',
      ),
      retry: prepare<SettledRow>(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?, ${freeLease}
         WHERE lease_token = ? AND done_at IS NULL RETURNING event_id, endpoint_id`,
      ),
      finish: prepare<SettledRow>(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, done_at = ?, outcome = ?, ${freeLease}
         WHERE lease_token = ? AND done_at IS NULL RETURNING event_id, endpoint_id`,
      ),
      logAttempt: prepare('INSERT INTO webhook_attempts (endpoint_id, event_id, attempted_at, status, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?)'),
      pruneAttempts: prepare(
        `DELETE FROM webhook_attempts WHERE endpoint_id = ?
         AND id NOT IN (SELECT id FROM webhook_attempts WHERE endpoint_id = ? ORDER BY id DESC LIMIT ${ATTEMPTS_KEPT})`,
      ),
      release: prepare(`UPDATE webhook_deliveries SET ${freeLease} WHERE done_at IS NULL AND lease_token IN (SELECT value FROM json_each(?))`),
      releaseHeldBy: prepare(
        `UPDATE webhook_deliveries SET ${freeLease}
         WHERE done_at IS NULL AND lease_token IS NOT NULL AND lease_holder IN (SELECT value FROM json_each(?))`,
      ),
    };
    this.announceSteps = {
      jobOwner: (jobId) => this.sql.jobOwner.get(jobId)!,
      liveEndpoints: (userId) => this.sql.liveEndpoints.all(userId).map((row) => row.id),
      verdictCounts: (jobId) => jobs.verdictCounts(jobId),
      enqueueDelivery: (endpointId, event) => this.insertDelivery(endpointId, event),
    };
    this.claimSteps = ({ holder, expiresAt }) => ({
      inFlight: (now) => this.sql.inFlight.all(now),
      dueEndpoints: (now) => this.sql.dueEndpoints.all({ now }),
      dueOf: (endpointId, now, limit) => this.sql.dueOf.all({ endpointId, now, limit }),
      lease: (ids, now) => {
        const claimed = this.sql.lease.all({ ids: JSON.stringify(ids), now, holder, expiresAt });
        if (claimed.length === 0) return [];
        const endpoints = new Map(this.sql.endpointsById.all(JSON.stringify(claimed.map((row) => row.endpoint_id))).map((row) => [row.id, row]));
        return claimed.map((row) => toDueDelivery({ ...row, url: endpoints.get(row.endpoint_id)!.url, secret: endpoints.get(row.endpoint_id)!.secret }));
      },
    });
    this.attemptSteps = {
      retry: (lease, retryInMs) => settled(this.sql.retry.get(this.nowMs() + retryInMs, lease)),
      finish: (lease, outcome, at) => settled(this.sql.finish.get(at, outcome, lease)),
      logAttempt: (endpointId, { eventId, attemptedAt, status, latencyMs, error }) => {
        this.sql.logAttempt.run(endpointId, eventId, attemptedAt, status, latencyMs, error);
        this.sql.pruneAttempts.run(endpointId, endpointId);
      },
      disableEndpoint: (endpointId, at, reason) => {
        this.sql.disableEndpoint.run(at, reason, endpointId);
        this.sql.stopDeliveries.run(at, 'disabled', endpointId);
      },
      noteFailure: (endpointId, at) => this.sql.noteFailure.get(at, endpointId)!.failing_since,
      noteSuccess: (endpointId) => void this.sql.noteSuccess.run(endpointId),
    };
  }

  private nowMs(): number {
    return this.connection.now().getTime();
  }

  createEndpoint(
    userId: number,
    { url, description, secret }: { url: string; description: string | null; secret: string },
    limit = Infinity,
  ): WebhookEndpoint | undefined {
    return this.connection.db
      .transaction(() => {
        if (this.sql.countEndpoints.get(userId)!.count >= limit) return undefined;
        return toEndpoint(this.sql.insertEndpoint.get(randomUUID(), userId, url, description, secret, this.connection.timestamp())!);
      })
      .immediate();
  }

  listEndpoints(userId: number): WebhookEndpointWithAttempts[] {
    return this.connection.db.transaction(() => withAttempts(this.sql.endpointsOf.all(userId), this.sql.attemptsOf.all(userId), WEBHOOK_ATTEMPTS_LISTED))();
  }

  findEndpoint(userId: number, endpointId: string): WebhookEndpoint | undefined {
    const row = this.sql.endpointOf.get(endpointId, userId);
    return row && toEndpoint(row);
  }

  removeEndpoint(userId: number, endpointId: string): boolean {
    return this.connection.db
      .transaction(() => {
        const at = this.connection.timestamp();
        if (this.sql.removeEndpoint.run(at, endpointId, userId).changes === 0) return false;
        this.sql.stopDeliveries.run(at, 'removed', endpointId);
        return true;
      })
      .immediate();
  }

  enqueue(endpointId: string, event: WebhookEvent, testsPerMinute = Infinity): boolean {
    return this.connection.db
      .transaction(() => {
        const since = new Date(this.nowMs() - 60_000).toISOString();
        if (event.type === 'webhook.test' && this.sql.recentTests.get({ endpointId, since })!.count >= testsPerMinute) return false;
        this.insertDelivery(endpointId, event);
        return true;
      })
      .immediate();
  }

  private insertDelivery(endpointId: string, event: WebhookEvent): void {
    this.sql.insertDelivery.run(randomUUID(), event.id, event.type, endpointId, event.payload, this.nowMs(), this.connection.timestamp());
  }

  claimDeliveries({ max, leaseMs, holder, perAccount = DELIVERIES_IN_FLIGHT_PER_ACCOUNT }: DeliveryClaim): DueDelivery[] {
    return this.connection.db
      .transaction(() => {
        const now = this.nowMs();
        return runNow(flows.claimDeliveries(this.claimSteps({ holder, expiresAt: now + leaseMs }), { max, perAccount }, now));
      })
      .immediate();
  }

  recordAttempt(record: AttemptOutcome): boolean {
    return this.connection.db.transaction(() => runNow(flows.recordAttempt(this.attemptSteps, record, this.connection.timestamp()))).immediate();
  }

  releaseDeliveries(leases: readonly string[]): void {
    if (leases.length > 0) this.sql.release.run(JSON.stringify(leases));
  }

  backlog(): DeliveryBacklog {
    const { due, oldest } = this.sql.backlog.get({ now: this.nowMs() })!;
    return { due, oldestDueAt: oldest };
  }

  prune(before: string): number {
    return this.connection.db.transaction(() => this.sql.prune.reduce((sum, statement) => sum + statement.run(before).changes, 0)).immediate();
  }

  /** Frees the deliveries leased to these holders (gone: see SqliteWork.rescue); returns how many. */
  releaseHeldBy(holders: readonly string[]): number {
    return this.sql.releaseHeldBy.run(JSON.stringify(holders)).changes;
  }
}
