import { randomUUID } from 'node:crypto';
import { resultJson } from '../../../engine/types.js';
import type { ClaimRequest, LeasedResult, WorkChunk } from '../store.js';
import { fairOrder, type CandidateJob } from '../fair-order.js';
import type { Connection } from './database.js';

/** Lease-claimed work on SQLite: every claim is one IMMEDIATE transaction, so claims from several processes are serialised. */
export class WorkRecords {
  private readonly sql;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    // An item is claimable when it has no result and no live lease: never leased, released, or expired.
    const claimable = 'result IS NULL AND (lease_token IS NULL OR lease_expires_at <= @now)';
    this.sql = {
      candidates: prepare<CandidateJob>(
        `SELECT id, user_id, created_at,
           (SELECT count(*) FROM job_items i
              WHERE i.job_id = jobs.id AND i.result IS NULL AND i.lease_token IS NOT NULL AND i.lease_expires_at > @now) AS in_flight
         FROM jobs WHERE completed_at IS NULL`,
      ),
      // The pending index is ordered by domain: the first claimable item names the chunk's domain.
      firstDomain: prepare<{ domain: string }>(
        `SELECT domain FROM job_items
         WHERE job_id = @jobId AND ${claimable} AND domain NOT IN (SELECT value FROM json_each(@skip))
         ORDER BY domain, position LIMIT 1`,
      ),
      claim: prepare<{ position: number; email: string }>(
        `UPDATE job_items SET lease_token = @lease, lease_expires_at = @expiresAt
         WHERE job_id = @jobId AND position IN (
           SELECT position FROM job_items WHERE job_id = @jobId AND domain = @domain AND ${claimable} ORDER BY position LIMIT @limit)
         RETURNING position, email`,
      ),
      renew: prepare(
        `UPDATE job_items SET lease_expires_at = ?
         WHERE result IS NULL AND lease_token IN (SELECT value FROM json_each(?))`,
      ),
      release: prepare(
        `UPDATE job_items SET lease_token = NULL, lease_expires_at = NULL
         WHERE result IS NULL AND lease_token IN (SELECT value FROM json_each(?))`,
      ),
      // `result IS NULL`: an item keeps its first result; `lease_token = ?`: only the lease holding it may write it.
      saveResult: prepare(
        `UPDATE job_items SET result = ?, lease_token = NULL, lease_expires_at = NULL
         WHERE job_id = ? AND position = ? AND result IS NULL AND lease_token = ?`,
      ),
      countProcessed: prepare(
        `UPDATE jobs SET processed = processed + ?,
           completed_at = CASE WHEN processed + ? >= total THEN ? ELSE NULL END
         WHERE id = ? AND completed_at IS NULL`,
      ),
    };
  }

  private nowMs(): number {
    return this.connection.now().getTime();
  }

  claimWork({ maxItems, leaseMs, skipDomains = [] }: ClaimRequest): WorkChunk | undefined {
    const skip = JSON.stringify(skipDomains);
    return this.connection.db.transaction((): WorkChunk | undefined => {
      const now = this.nowMs();
      for (const job of fairOrder(this.sql.candidates.all({ now }))) {
        const first = this.sql.firstDomain.get({ jobId: job.id, now, skip });
        if (!first) continue;
        const lease = randomUUID();
        const rows = this.sql.claim.all({ lease, expiresAt: now + leaseMs, jobId: job.id, domain: first.domain, now, limit: maxItems });
        const items = rows.sort((a, b) => a.position - b.position).map((row) => ({ jobId: job.id, position: row.position, email: row.email }));
        return { lease, jobId: job.id, userId: job.user_id, domain: first.domain, items };
      }
      return undefined;
    }).immediate();
  }

  renewLeases(leases: readonly string[], leaseMs: number): void {
    if (leases.length > 0) this.sql.renew.run(this.nowMs() + leaseMs, JSON.stringify(leases));
  }

  releaseLeases(leases: readonly string[]): void {
    if (leases.length > 0) this.sql.release.run(JSON.stringify(leases));
  }

  saveResults(results: readonly LeasedResult[]): void {
    if (results.length === 0) return;
    this.connection.db.transaction(() => {
      const writtenPerJob = new Map<string, number>();
      for (const { lease, jobId, position, result } of results) {
        const written = this.sql.saveResult.run(resultJson(result), jobId, position, lease).changes;
        writtenPerJob.set(jobId, (writtenPerJob.get(jobId) ?? 0) + written);
      }
      const completedAt = this.connection.timestamp();
      for (const [jobId, written] of writtenPerJob) {
        if (written > 0) this.sql.countProcessed.run(written, written, completedAt, jobId);
      }
    }).immediate();
  }
}
