import { randomUUID } from 'node:crypto';
import { resultJson } from '../../../engine/types.js';
import { fairOrder, type CandidateJob } from '../fair-order.js';
import type { ClaimRequest, LeasedResult, WorkChunk } from '../store.js';
import type { Database, Statements } from './database.js';

/** An item is claimable when it has no result and no live lease: never leased, released, or expired ($1: now). */
const CLAIMABLE = 'result IS NULL AND (lease_token IS NULL OR lease_expires_at <= $1)';

/**
 * Lease-claimed work on PostgreSQL, for runners on any number of machines. A claim locks the rows
 * it takes with FOR UPDATE SKIP LOCKED: two claims at the same moment never wait for each other
 * and never take the same item (each skips what the other is taking); once committed, the lease
 * keeps the items out of every later claim until it expires or is released.
 */
export class WorkRecords {
  constructor(private readonly db: Database) {}

  private nowMs(): number {
    return this.db.now().getTime();
  }

  claimWork({ maxItems, leaseMs, skipDomains = [] }: ClaimRequest): Promise<WorkChunk | undefined> {
    return this.db.transaction(async (sql) => {
      const now = this.nowMs();
      const candidates = await sql.rows<CandidateJob>(
        `SELECT id, user_id, created_at,
           (SELECT count(*) FROM job_items i
              WHERE i.job_id = jobs.id AND i.result IS NULL AND i.lease_token IS NOT NULL AND i.lease_expires_at > $1) AS in_flight
         FROM jobs WHERE completed_at IS NULL`,
        [now],
      );
      for (const job of fairOrder(candidates)) {
        const chunk = await this.claimIn(sql, job, now, leaseMs, maxItems, skipDomains);
        if (chunk) return chunk;
      }
      return undefined;
    });
  }

  /** Up to `maxItems` claimable items of one domain of this job, or undefined when it has none (free for us). */
  private async claimIn(
    sql: Statements,
    job: CandidateJob,
    now: number,
    leaseMs: number,
    maxItems: number,
    skipDomains: readonly string[],
  ): Promise<WorkChunk | undefined> {
    // The pending index is ordered by domain: the first claimable item names the chunk's domain.
    // Locking it (skipping items another claim is taking) makes the chunk hold at least that item.
    const first = await sql.row<{ domain: string }>(
      `SELECT domain FROM job_items
       WHERE job_id = $2 AND ${CLAIMABLE} AND domain <> ALL ($3::text[])
       ORDER BY domain, position LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [now, job.id, skipDomains],
    );
    if (!first) return undefined;
    const lease = randomUUID();
    const rows = await sql.rows<{ position: number; email: string }>(
      `UPDATE job_items SET lease_token = $4, lease_expires_at = $5
       WHERE job_id = $2 AND position IN (
         SELECT position FROM job_items WHERE job_id = $2 AND domain = $3 AND ${CLAIMABLE}
         ORDER BY position LIMIT $6 FOR UPDATE SKIP LOCKED)
       RETURNING position, email`,
      [now, job.id, first.domain, lease, now + leaseMs, maxItems],
    );
    const items = rows.sort((a, b) => a.position - b.position).map((row) => ({ jobId: job.id, position: row.position, email: row.email }));
    return { lease, jobId: job.id, userId: job.user_id, domain: first.domain, items };
  }

  async renewLeases(leases: readonly string[], leaseMs: number): Promise<void> {
    if (leases.length === 0) return;
    await this.db.sql.run('UPDATE job_items SET lease_expires_at = $1 WHERE result IS NULL AND lease_token = ANY ($2::text[])', [
      this.nowMs() + leaseMs,
      leases,
    ]);
  }

  async releaseLeases(leases: readonly string[]): Promise<void> {
    if (leases.length === 0) return;
    await this.db.sql.run('UPDATE job_items SET lease_token = NULL, lease_expires_at = NULL WHERE result IS NULL AND lease_token = ANY ($1::text[])', [leases]);
  }

  async saveResults(results: readonly LeasedResult[]): Promise<void> {
    if (results.length === 0) return;
    await this.db.transaction(async (sql) => {
      // `result IS NULL`: an item keeps its first result; `lease_token = batch.lease`: only the lease holding it may write it.
      const written = await sql.rows<{ job_id: string }>(
        `UPDATE job_items SET result = batch.result, lease_token = NULL, lease_expires_at = NULL
         FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[]) AS batch (lease, job_id, position, result)
         WHERE job_items.job_id = batch.job_id AND job_items.position = batch.position
           AND job_items.result IS NULL AND job_items.lease_token = batch.lease
         RETURNING job_items.job_id`,
        [
          results.map((each) => each.lease),
          results.map((each) => each.jobId),
          results.map((each) => each.position),
          results.map((each) => resultJson(each.result)),
        ],
      );
      const writtenPerJob = new Map<string, number>();
      for (const { job_id: jobId } of written) writtenPerJob.set(jobId, (writtenPerJob.get(jobId) ?? 0) + 1);
      const completedAt = this.db.timestamp();
      // In one order on every node, so that two batches touching the same jobs cannot deadlock.
      for (const jobId of [...writtenPerJob.keys()].sort()) {
        await sql.run(
          `UPDATE jobs SET processed = processed + $1,
             completed_at = CASE WHEN processed + $1 >= total THEN $2 ELSE NULL END
           WHERE id = $3 AND completed_at IS NULL`,
          [writtenPerJob.get(jobId), completedAt, jobId],
        );
      }
    });
  }
}
