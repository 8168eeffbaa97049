import { resultJson } from '../../../engine/core/types.js';
import type { CandidateJob } from '../fair-order.js';
import * as flows from '../flows/work.js';
import type { ClaimSteps, LeasedItemRow, RescueSteps, ResultSteps } from '../flows/work.js';
import { runAwaiting } from '../flows/flow.js';
import type { ClaimRequest, LeasedResult, SavedResults, SavePolicy, WorkChunk } from '../model.js';
import type { Database, Statements } from './database.js';
import { aliveAt } from './holders.js';
import type { PostgresAccounts } from './accounts.js';
import type { PostgresWebhooks } from './webhooks.js';
import type { PostgresResultCache } from './result-cache.js';

/** An item is claimable when it has no result and no live lease: never leased, released, or expired ($1: now). */
const CLAIMABLE = 'result IS NULL AND (lease_token IS NULL OR lease_expires_at <= $1)';

/**
 * Lease-claimed work on PostgreSQL, for runners on any number of machines. A claim locks the rows
 * it takes with FOR UPDATE SKIP LOCKED: two claims at the same moment never wait for each other
 * and never take the same item (each skips what the other is taking); once committed, the lease
 * keeps the items out of every later claim until it expires or is released.
 */
export class PostgresWork {
  constructor(
    private readonly db: Database,
    private readonly users: PostgresAccounts,
    private readonly webhooks: PostgresWebhooks,
    private readonly resultCache: PostgresResultCache,
  ) {}

  /** The queue's own transactions on job_items: planned for each call's values (see Planning). */
  private queueTransaction<T>(work: (sql: Statements, now: number) => Promise<T>): Promise<T> {
    return this.db.clockedTransaction(work, 'each call');
  }

  claimWork(request: ClaimRequest): Promise<WorkChunk | undefined> {
    return this.queueTransaction((sql, now) => runAwaiting(flows.claimWork(this.claimSteps(sql), request, now)));
  }

  async depth(): Promise<{ pending: number; leased: number; waiting: number }> {
    const now = await this.db.leaseClock(this.db.sql);
    return (await this.db.sql.row<{ pending: number; leased: number; waiting: number }>(
      `SELECT count(*) FILTER (WHERE lease_token IS NULL OR lease_expires_at <= $1) AS pending,
              count(*) FILTER (WHERE lease_token IS NOT NULL AND lease_expires_at > $1) AS leased,
              (SELECT count(*) FROM job_items WHERE due_at IS NOT NULL) AS waiting
       FROM job_items WHERE result IS NULL`,
      [now],
    ))!;
  }

  rescue(): Promise<number> {
    return this.db.clockedTransaction((sql, now) => runAwaiting(flows.rescue(this.rescueSteps(sql), now)));
  }

  private rescueSteps(sql: Statements): RescueSteps {
    return {
      holdersWithLeases: async (now) =>
        (
          await sql.rows<{ lease_holder: string }>(
            `SELECT lease_holder FROM job_items
             WHERE result IS NULL AND lease_token IS NOT NULL AND lease_holder IS NOT NULL AND lease_expires_at > $1
             UNION
             SELECT lease_holder FROM webhook_deliveries
             WHERE done_at IS NULL AND lease_token IS NOT NULL AND lease_holder IS NOT NULL AND lease_expires_at > $1`,
            [now],
          )
        ).map((row) => row.lease_holder),
      isAlive: aliveAt(this.db, sql),
      releaseHeldBy: (holders) =>
        sql.run(
          `UPDATE job_items SET lease_token = NULL, lease_expires_at = NULL, lease_holder = NULL
           WHERE result IS NULL AND lease_token IS NOT NULL AND lease_holder = ANY ($1::text[])`,
          [holders],
        ),
      releaseDeliveriesHeldBy: (holders) => this.webhooks.releaseHeldBy(sql, holders),
    };
  }

  private claimSteps(sql: Statements): ClaimSteps {
    return {
      // Live leases: a range of job_items_in_flight, as long as the job has items in flight.
      candidates: (now) =>
        sql.rows<CandidateJob>(
          `SELECT id, user_id, created_at, fresh, settle_by, sandbox,
             (SELECT count(*) FROM job_items i
               WHERE i.job_id = jobs.id AND i.result IS NULL AND i.lease_token IS NOT NULL AND i.lease_expires_at > $1) AS in_flight
           FROM jobs WHERE completed_at IS NULL`,
          [now],
        ),
      // Seeks in the index of free items (job_items_free), ordered by domain. Locking the item found
      // (skipping items another claim is taking) makes the chunk hold at least that item.
      nextFreeDomain: async (jobId, after) =>
        (
          await sql.row<{ domain: string }>(
            `SELECT domain FROM job_items
             WHERE job_id = $1 AND result IS NULL AND lease_token IS NULL ${after === undefined ? '' : 'AND domain > $2'}
             ORDER BY domain, position LIMIT 1 FOR UPDATE SKIP LOCKED`,
            after === undefined ? [jobId] : [jobId, after],
          )
        )?.domain,
      // Only the expired leases are read (a range of job_items_in_flight).
      firstExpiredDomain: async (jobId, now, skip) =>
        (
          await sql.row<{ domain: string }>(
            `SELECT domain FROM job_items
             WHERE job_id = $2 AND result IS NULL AND lease_token IS NOT NULL AND lease_expires_at <= $1 AND domain <> ALL ($3::text[])
             ORDER BY domain, position LIMIT 1 FOR UPDATE SKIP LOCKED`,
            [now, jobId, skip],
          )
        )?.domain,
      // The rows locked are updated where they lie (by ctid, which their lock keeps still): a
      // statement that finds them again by job and position leaves the planner a choice, and
      // with a new job's rows not yet in the statistics it took a join that compared every item
      // of the job with every one chosen (20,000 × 250, up to a second per claim).
      leaseItems: (jobId, domain, lease, now, limit) =>
        sql.rows<LeasedItemRow>(
          `UPDATE job_items SET lease_token = $4, lease_expires_at = $5, lease_holder = $7
           WHERE ctid = ANY (ARRAY(
             SELECT ctid FROM job_items WHERE job_id = $2 AND domain = $3 AND ${CLAIMABLE}
             ORDER BY position LIMIT $6 FOR UPDATE SKIP LOCKED))
           RETURNING position, email, attempts, first_answered_at`,
          [now, jobId, domain, lease.token, lease.expiresAt, limit, lease.holder],
        ),
    };
  }

  /** See WorkQueue.wakeDue: a range of job_items_due. */
  wakeDue(): Promise<number> {
    return this.queueTransaction((sql, now) => sql.run('UPDATE job_items SET result = NULL, due_at = NULL WHERE due_at <= $1', [now]));
  }

  async renewLeases(leases: readonly string[], leaseMs: number): Promise<string[]> {
    if (leases.length === 0) return [];
    const rows = await this.queueTransaction((sql, now) =>
      sql.rows<{ lease_token: string }>(
        'UPDATE job_items SET lease_expires_at = $1 WHERE result IS NULL AND lease_token = ANY ($2::text[]) RETURNING lease_token',
        [now + leaseMs, leases],
      ),
    );
    return [...new Set(rows.map((row) => row.lease_token))];
  }

  async releaseLeases(leases: readonly string[]): Promise<void> {
    if (leases.length === 0) return;
    await this.queueTransaction((sql) =>
      sql.run('UPDATE job_items SET lease_token = NULL, lease_expires_at = NULL, lease_holder = NULL WHERE result IS NULL AND lease_token = ANY ($1::text[])', [
        leases,
      ]),
    );
  }

  async saveResults(results: readonly LeasedResult[], policy?: SavePolicy): Promise<SavedResults> {
    if (results.length === 0) return { completedJobs: 0, refunded: 0 };
    return this.queueTransaction((sql) => runAwaiting(flows.saveResults(this.resultSteps(sql), results, this.db.timestamp(), policy)));
  }

  private resultSteps(sql: Statements): ResultSteps {
    return {
      ...this.webhooks.announceSteps(sql),
      rememberVerdicts: (entries) => this.resultCache.remember(entries, sql),
      // `lease_token = batch.lease`: only the lease holding an item may write it, and an item keeps
      // its first result, since an item with a result holds no lease (job_items_result_unleased).
      // Saying `result IS NULL` as well would let the planner reach each row through a partial
      // index by job alone and filter every leased item of the job for each result.
      // The rows are found by their key one at a time (the lateral lookup can only be a seek in
      // the primary key), locked, so that where they lie stays so, and updated there, as claims
      // are: joined to the batch as a whole,
      // a planner whose statistics predate a new job's items hashed the batch and read every item
      // of the table for each write (a sequential scan of 10,000 rows for 40 results).
      // A temporary answer (batch.due_at) also counts an attempt and keeps when the first came.
      writeResults: async (results, answeredAt) => {
        const written = await sql.rows<{ job_id: string; position: number }>(
          `UPDATE job_items SET result = batch.result, lease_token = NULL, lease_expires_at = NULL, lease_holder = NULL,
               due_at = batch.due_at, attempts = job_items.attempts + (batch.due_at IS NOT NULL)::integer,
               first_answered_at = CASE WHEN batch.due_at IS NULL THEN job_items.first_answered_at ELSE coalesce(job_items.first_answered_at, $6) END
             FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::bigint[]) AS batch (lease, job_id, position, result, due_at)
             WHERE job_items.ctid = ANY (ARRAY(
                 SELECT item.ctid FROM unnest($2::text[], $3::integer[]) AS asked (job_id, position)
                 CROSS JOIN LATERAL (SELECT ctid FROM job_items WHERE job_id = asked.job_id AND position = asked.position FOR UPDATE) item))
               AND job_items.job_id = batch.job_id AND job_items.position = batch.position
               AND job_items.lease_token = batch.lease
             RETURNING job_items.job_id, job_items.position`,
          [
            results.map((each) => each.lease),
            results.map((each) => each.jobId),
            results.map((each) => each.position),
            results.map((each) => resultJson(each.result)),
            results.map((each) => each.dueAt ?? null),
            answeredAt,
          ],
        );
        const keys = new Set(written.map((row) => `${row.job_id}:${row.position}`));
        return results.map((each) => keys.has(`${each.jobId}:${each.position}`));
      },
      refundToOwner: async (jobId, amount) => {
        const owner = await sql.row<{ user_id: number }>('SELECT user_id FROM jobs WHERE id = $1', [jobId]);
        await this.users.giveBack(sql, owner!.user_id, amount, jobId);
      },
      // Only a job not completed before is counted, so a completion returned here is this batch's.
      countProcessed: async (jobId, written, completedAt) =>
        (
          await sql.row<{ completed: boolean }>(
            `UPDATE jobs SET processed = processed + $1,
               completed_at = CASE WHEN processed + $1 >= total THEN $2 ELSE NULL END
             WHERE id = $3 AND completed_at IS NULL
             RETURNING completed_at IS NOT NULL AS completed`,
            [written, completedAt, jobId],
          )
        )?.completed === true,
      unknownsOf: (jobId) =>
        sql.rows<{ reasonCode: string; count: number }>(
          `SELECT result::jsonb ->> 'reasonCode' AS "reasonCode", count(*)::integer AS count FROM job_items
           WHERE job_id = $1 AND result::jsonb ->> 'result' = 'unknown' GROUP BY 1`,
          [jobId],
        ),
      isSandbox: async (jobId) => (await sql.row<{ sandbox: boolean }>('SELECT sandbox FROM jobs WHERE id = $1', [jobId]))?.sandbox === true,
    };
  }
}
