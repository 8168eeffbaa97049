import { randomUUID } from 'node:crypto';
import * as flows from '../flows/webhooks.js';
import type { AnnounceSteps, AttemptSteps, ClaimSteps } from '../flows/webhooks.js';
import { runAwaiting } from '../flows/flow.js';
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
import { isForeignKeyViolation, noSuchUser, type Database, type Statements } from './database.js';
import type { PostgresJobs } from './jobs.js';

const FREE_LEASE = 'lease_token = NULL, lease_holder = NULL, lease_expires_at = NULL';
const STOP_DELIVERIES = `UPDATE webhook_deliveries SET done_at = $1, outcome = $2, ${FREE_LEASE} WHERE endpoint_id = $3 AND done_at IS NULL`;

/**
 * Webhook endpoints and the leased deliveries of events to them, on PostgreSQL. A claim locks the
 * deliveries it takes with FOR UPDATE SKIP LOCKED, as a claim of work items does: two nodes
 * claiming at once never wait for each other and never take the same delivery.
 */
export class PostgresWebhooks {
  constructor(
    private readonly db: Database,
    private readonly jobs: PostgresJobs,
  ) {}

  /** Used by PostgresWork.saveResults, on its transaction's connection. */
  announceSteps(sql: Statements): AnnounceSteps {
    return {
      jobOwner: async (jobId) => (await sql.row<{ userId: number; total: number }>('SELECT user_id AS "userId", total FROM jobs WHERE id = $1', [jobId]))!,
      liveEndpoints: async (userId) =>
        (await sql.rows<{ id: string }>('SELECT id FROM webhook_endpoints WHERE user_id = $1 AND disabled_at IS NULL AND removed_at IS NULL', [userId])).map(
          (row) => row.id,
        ),
      verdictCounts: (jobId) => this.jobs.verdictCounts(jobId, sql),
      enqueueDelivery: (endpointId, event) => this.insertDelivery(sql, endpointId, event),
    };
  }

  private async insertDelivery(sql: Statements, endpointId: string, event: WebhookEvent): Promise<void> {
    await sql.run(
      `INSERT INTO webhook_deliveries (id, event_id, event_type, endpoint_id, payload, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [randomUUID(), event.id, event.type, endpointId, event.payload, await this.db.leaseClock(sql), this.db.timestamp()],
    );
  }

  private attemptSteps(sql: Statements): AttemptSteps {
    return {
      retry: async (lease, retryInMs) =>
        settled(
          await sql.row<SettledRow>(
            `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = $1, ${FREE_LEASE}
             WHERE lease_token = $2 AND done_at IS NULL RETURNING event_id, endpoint_id`,
            [(await this.db.leaseClock(sql)) + retryInMs, lease],
          ),
        ),
      finish: async (lease, outcome, at) =>
        settled(
          await sql.row<SettledRow>(
            `UPDATE webhook_deliveries SET attempts = attempts + 1, done_at = $1, outcome = $2, ${FREE_LEASE}
             WHERE lease_token = $3 AND done_at IS NULL RETURNING event_id, endpoint_id`,
            [at, outcome, lease],
          ),
        ),
      logAttempt: async (endpointId, { eventId, attemptedAt, status, latencyMs, error }) => {
        await sql.run('INSERT INTO webhook_attempts (endpoint_id, event_id, attempted_at, status, latency_ms, error) VALUES ($1, $2, $3, $4, $5, $6)', [
          endpointId,
          eventId,
          attemptedAt,
          status,
          latencyMs,
          error,
        ]);
        await sql.run(
          `DELETE FROM webhook_attempts WHERE endpoint_id = $1
           AND id NOT IN (SELECT id FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY id DESC LIMIT ${ATTEMPTS_KEPT})`,
          [endpointId],
        );
      },
      disableEndpoint: async (endpointId, at, reason) => {
        await sql.run('UPDATE webhook_endpoints SET disabled_at = $1, disabled_reason = $2 WHERE id = $3 AND disabled_at IS NULL', [at, reason, endpointId]);
        await sql.run(STOP_DELIVERIES, [at, 'disabled', endpointId]);
      },
      noteFailure: async (endpointId, at) =>
        (await sql.row<{ failing_since: string }>(
          'UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $1) WHERE id = $2 RETURNING failing_since',
          [at, endpointId],
        ))!.failing_since,
      noteSuccess: async (endpointId) => void (await sql.run('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1', [endpointId])),
    };
  }

  async createEndpoint(
    userId: number,
    { url, description, secret }: { url: string; description: string | null; secret: string },
    limit = Infinity,
  ): Promise<WebhookEndpoint | undefined> {
    try {
      return await this.db.transaction(async (sql) => {
        // The user's row held: of two registrations at once, the second counts the first's endpoint.
        await sql.run('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
        const { count } = (await sql.row<{ count: number }>('SELECT count(*)::int AS count FROM webhook_endpoints WHERE user_id = $1 AND removed_at IS NULL', [
          userId,
        ]))!;
        if (count >= limit) return undefined;
        const row = await sql.row<EndpointRow>(
          'INSERT INTO webhook_endpoints (id, user_id, url, description, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
          [randomUUID(), userId, url, description, secret, this.db.timestamp()],
        );
        return toEndpoint(row!);
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw noSuchUser(userId);
      throw error;
    }
  }

  listEndpoints(userId: number): Promise<WebhookEndpointWithAttempts[]> {
    return this.db.transaction(async (sql) => {
      const endpoints = await sql.rows<EndpointRow>('SELECT * FROM webhook_endpoints WHERE user_id = $1 AND removed_at IS NULL ORDER BY created_at, id', [
        userId,
      ]);
      const attempts = await sql.rows<AttemptRow>(
        `SELECT a.* FROM webhook_attempts a JOIN webhook_endpoints e ON e.id = a.endpoint_id
         WHERE e.user_id = $1 AND e.removed_at IS NULL ORDER BY a.id DESC`,
        [userId],
      );
      return withAttempts(endpoints, attempts, WEBHOOK_ATTEMPTS_LISTED);
    }, 'repeatable read');
  }

  async findEndpoint(userId: number, endpointId: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.db.sql.row<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1 AND user_id = $2 AND removed_at IS NULL', [
      endpointId,
      userId,
    ]);
    return row && toEndpoint(row);
  }

  removeEndpoint(userId: number, endpointId: string): Promise<boolean> {
    return this.db.transaction(async (sql) => {
      const at = this.db.timestamp();
      const removed = await sql.run('UPDATE webhook_endpoints SET removed_at = $1 WHERE id = $2 AND user_id = $3 AND removed_at IS NULL', [
        at,
        endpointId,
        userId,
      ]);
      if (removed === 0) return false;
      await sql.run(STOP_DELIVERIES, [at, 'removed', endpointId]);
      return true;
    });
  }

  enqueue(endpointId: string, event: WebhookEvent, testsPerMinute = Infinity): Promise<boolean> {
    return this.db.transaction(async (sql) => {
      if (event.type === 'webhook.test' && Number.isFinite(testsPerMinute)) {
        // The account's row held: two test events at once are counted one after the other.
        await sql.run('SELECT 1 FROM users WHERE id = (SELECT user_id FROM webhook_endpoints WHERE id = $1) FOR UPDATE', [endpointId]);
        const since = new Date((await this.db.leaseClock(sql)) - 60_000).toISOString();
        const { count } = (await sql.row<{ count: string }>(recentTestsQuery('$1', '$2'), [endpointId, since]))!;
        if (Number(count) >= testsPerMinute) return false;
      }
      await this.insertDelivery(sql, endpointId, event);
      return true;
    });
  }

  /**
   * The fair choice is the flow's (flows/webhooks.ts); of the deliveries it names, those another
   * node is claiming at this moment are skipped (FOR UPDATE SKIP LOCKED), as a claim of work items does.
   */
  private claimSteps(sql: Statements, { holder, expiresAt }: { holder: string; expiresAt: number }): ClaimSteps {
    return {
      inFlight: async (now) =>
        (await sql.rows<{ userId: string; count: string }>(inFlightQuery('$1'), [now])).map((row) => ({
          userId: Number(row.userId),
          count: Number(row.count),
        })),
      dueEndpoints: async (now) =>
        (await sql.rows<{ endpointId: string; userId: string; oldest: string }>(dueEndpointsQuery('$1::bigint'), [now])).map((row) => ({
          endpointId: row.endpointId,
          userId: Number(row.userId),
          oldest: Number(row.oldest),
        })),
      dueOf: async (endpointId, now, limit) =>
        (await sql.rows<{ id: string; due: string }>(dueOfQuery('$1', '$2::bigint', '$3'), [endpointId, now, limit])).map((row) => ({
          id: row.id,
          due: Number(row.due),
        })),
      lease: async (ids, now) =>
        (
          await sql.rows<DueRow>(
            `UPDATE webhook_deliveries d SET lease_token = gen_random_uuid()::text, lease_holder = $3, lease_expires_at = $4
             FROM webhook_endpoints e
             WHERE e.id = d.endpoint_id AND d.id IN (
               SELECT id FROM webhook_deliveries WHERE id = ANY ($1::text[]) AND ${unheldDue('$2::bigint')} FOR UPDATE SKIP LOCKED)
             RETURNING d.lease_token, d.id, d.event_id, d.event_type, d.payload, d.attempts, d.endpoint_id, e.url, e.secret`,
            [ids, now, holder, expiresAt],
          )
        ).map(toDueDelivery),
    };
  }

  claimDeliveries({ max, leaseMs, holder, perAccount = DELIVERIES_IN_FLIGHT_PER_ACCOUNT }: DeliveryClaim): Promise<DueDelivery[]> {
    return this.db.transaction(async (sql) => {
      const now = await this.db.leaseClock(sql);
      return runAwaiting(flows.claimDeliveries(this.claimSteps(sql, { holder, expiresAt: now + leaseMs }), { max, perAccount }, now));
    });
  }

  async backlog(): Promise<DeliveryBacklog> {
    const row = (await this.db.sql.row<{ due: string; oldest: string | null }>(backlogQuery('$1'), [await this.db.leaseClock(this.db.sql)]))!;
    return { due: Number(row.due), oldestDueAt: row.oldest === null ? null : Number(row.oldest) };
  }

  prune(before: string): Promise<number> {
    return this.db.transaction(async (sql) => {
      let pruned = 0;
      for (const statement of pruneStatements('$1')) pruned += await sql.run(statement, [before]);
      return pruned;
    });
  }

  recordAttempt(record: AttemptOutcome): Promise<boolean> {
    return this.db.transaction((sql) => runAwaiting(flows.recordAttempt(this.attemptSteps(sql), record, this.db.timestamp())));
  }

  async releaseDeliveries(leases: readonly string[]): Promise<void> {
    if (leases.length === 0) return;
    await this.db.sql.run(`UPDATE webhook_deliveries SET ${FREE_LEASE} WHERE done_at IS NULL AND lease_token = ANY ($1::text[])`, [leases]);
  }

  /** Frees the deliveries leased to these holders (gone: see PostgresWork.rescue), on the rescue's connection; returns how many. */
  releaseHeldBy(sql: Statements, holders: readonly string[]): Promise<number> {
    return sql.run(`UPDATE webhook_deliveries SET ${FREE_LEASE} WHERE done_at IS NULL AND lease_token IS NOT NULL AND lease_holder = ANY ($1::text[])`, [
      holders,
    ]);
  }
}
