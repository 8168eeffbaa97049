import { resultJson } from '../../../engine/core/types.js';
import type { CandidateJob } from '../fair-order.js';
import * as flows from '../flows/work.js';
import type { ClaimSteps, LeasedItemRow, RescueSteps, ResultSteps } from '../flows/work.js';
import { runNow } from '../flows/flow.js';
import type { ClaimRequest, LeasedResult, SavedResults, SavePolicy, WorkChunk } from '../model.js';
import type { Connection } from './database.js';
import { processIsAlive } from '../processes.js';
import type { SqliteAccounts } from './accounts.js';
import type { SqliteWebhooks } from './webhooks.js';
import type { SqliteResultCache } from './result-cache.js';

/** Lease-claimed work on SQLite: every claim is one IMMEDIATE transaction, so claims from several processes are serialised. */
export class SqliteWork {
  private readonly sql;
  private readonly claimSteps: ClaimSteps;
  private readonly resultSteps: ResultSteps;
  private readonly rescueSteps: RescueSteps;

  // A table of prepared statements and the steps built on them, one entry each: long, not deep.
  // eslint-disable-next-line max-lines-per-function
  constructor(
    private readonly connection: Connection,
    users: SqliteAccounts,
    webhooks: SqliteWebhooks,
    resultCache: SqliteResultCache,
  ) {
    const prepare = connection.prepare.bind(connection);
    // An item is claimable when it has no result and no live lease: never leased, released, or expired.
    const claimable = 'result IS NULL AND (lease_token IS NULL OR lease_expires_at <= @now)';
    this.sql = {
      // Live leases: a range of job_items_in_flight, as long as the job has items in flight.
      candidates: prepare<CandidateJob>(
        `SELECT id, user_id, created_at, fresh, settle_by, sandbox,
           (SELECT count(*) FROM job_items i
             WHERE i.job_id = jobs.id AND i.result IS NULL AND i.lease_token IS NOT NULL AND i.lease_expires_at > @now) AS in_flight
         FROM jobs WHERE completed_at IS NULL`,
      ),
      // Seeks in the index of free items (job_items_free), ordered by domain.
      firstFreeDomain: prepare<{ domain: string }>(
        `SELECT domain FROM job_items WHERE job_id = ? AND result IS NULL AND lease_token IS NULL ORDER BY domain, position LIMIT 1`,
      ),
      nextFreeDomain: prepare<{ domain: string }>(
        `SELECT domain FROM job_items WHERE job_id = ? AND result IS NULL AND lease_token IS NULL AND domain > ? ORDER BY domain, position LIMIT 1`,
      ),
      // A range of the in-flight index (job_items_in_flight): only the expired leases are read.
      firstExpiredDomain: prepare<{ domain: string | null }>(
        `SELECT min(domain) AS domain FROM job_items INDEXED BY job_items_in_flight
         WHERE job_id = @jobId AND result IS NULL AND lease_token IS NOT NULL AND lease_expires_at <= @now
           AND domain NOT IN (SELECT value FROM json_each(@skip))`,
      ),
      // The range of one domain of the job (the planner would walk the whole job by primary key for ORDER BY position).
      claim: prepare<LeasedItemRow>(
        `UPDATE job_items SET lease_token = @lease, lease_expires_at = @expiresAt, lease_holder = @holder
         WHERE job_id = @jobId AND position IN (
           SELECT position FROM job_items INDEXED BY job_items_pending
           WHERE job_id = @jobId AND domain = @domain AND ${claimable} ORDER BY position LIMIT @limit)
         RETURNING position, email, attempts, first_answered_at`,
      ),
      renew: prepare<{ lease_token: string }>(
        `UPDATE job_items SET lease_expires_at = ?
         WHERE result IS NULL AND lease_token IN (SELECT value FROM json_each(?))
         RETURNING lease_token`,
      ),
      depth: prepare<{ pending: number; leased: number; waiting: number }>(
        `SELECT coalesce(sum(lease_token IS NULL OR lease_expires_at <= ?), 0) AS pending,
                coalesce(sum(lease_token IS NOT NULL AND lease_expires_at > ?), 0) AS leased,
                (SELECT count(*) FROM job_items WHERE due_at IS NOT NULL) AS waiting
         FROM job_items WHERE result IS NULL`,
      ),
      holders: prepare<{ lease_holder: string }>(
        `SELECT lease_holder FROM job_items
         WHERE result IS NULL AND lease_token IS NOT NULL AND lease_holder IS NOT NULL AND lease_expires_at > ?
         UNION
         SELECT lease_holder FROM webhook_deliveries
         WHERE done_at IS NULL AND lease_token IS NOT NULL AND lease_holder IS NOT NULL AND lease_expires_at > ?`,
      ),
      releaseHeldBy: prepare(
        `UPDATE job_items SET lease_token = NULL, lease_expires_at = NULL, lease_holder = NULL
         WHERE result IS NULL AND lease_token IS NOT NULL AND lease_holder IN (SELECT value FROM json_each(?))`,
      ),
      release: prepare(
        `UPDATE job_items SET lease_token = NULL, lease_expires_at = NULL, lease_holder = NULL
         WHERE result IS NULL AND lease_token IN (SELECT value FROM json_each(?))`,
      ),
      // `result IS NULL`: an item keeps its first result; `lease_token = @lease`: only the lease holding it may write it.
      // A temporary answer (@dueAt) also counts an attempt and keeps when the first came.
      saveResult: prepare(
        `UPDATE job_items SET result = @result, lease_token = NULL, lease_expires_at = NULL, lease_holder = NULL,
           due_at = @dueAt, attempts = attempts + (@dueAt IS NOT NULL),
           first_answered_at = CASE WHEN @dueAt IS NULL THEN first_answered_at ELSE coalesce(first_answered_at, @answeredAt) END
         WHERE job_id = @jobId AND position = @position AND result IS NULL AND lease_token = @lease`,
      ),
      // The due ones of every job, a range of job_items_due: claimable again.
      wakeDue: prepare('UPDATE job_items SET result = NULL, due_at = NULL WHERE due_at <= ?'),
      ownerOf: prepare<{ user_id: number }>('SELECT user_id FROM jobs WHERE id = ?'),
      countProcessed: prepare<{ completed: number }>(
        `UPDATE jobs SET processed = processed + ?,
           completed_at = CASE WHEN processed + ? >= total THEN ? ELSE NULL END
         WHERE id = ? AND completed_at IS NULL
         RETURNING completed_at IS NOT NULL AS completed`,
      ),
      isSandbox: prepare<{ sandbox: number }>('SELECT sandbox FROM jobs WHERE id = ?'),
      unknowns: prepare<{ reasonCode: string; count: number }>(
        `SELECT result ->> '$.reasonCode' AS reasonCode, count(*) AS count FROM job_items
         WHERE job_id = ? AND result ->> '$.result' = 'unknown' GROUP BY 1`,
      ),
    };
    this.claimSteps = {
      candidates: (now) => this.sql.candidates.all({ now }),
      nextFreeDomain: (jobId, after) => (after === undefined ? this.sql.firstFreeDomain.get(jobId) : this.sql.nextFreeDomain.get(jobId, after))?.domain,
      firstExpiredDomain: (jobId, now, skip) => this.sql.firstExpiredDomain.get({ jobId, now, skip: JSON.stringify(skip) })?.domain ?? undefined,
      leaseItems: (jobId, domain, lease, now, limit) =>
        this.sql.claim.all({ lease: lease.token, holder: lease.holder, expiresAt: lease.expiresAt, jobId, domain, now, limit }),
    };
    this.rescueSteps = {
      holdersWithLeases: (now) => this.sql.holders.all(now, now).map((row) => row.lease_holder),
      isAlive: processIsAlive,
      releaseHeldBy: (holders) => this.sql.releaseHeldBy.run(JSON.stringify(holders)).changes,
      releaseDeliveriesHeldBy: (holders) => webhooks.releaseHeldBy(holders),
    };
    this.resultSteps = {
      writeResults: (results, answeredAt) =>
        results.map(
          ({ lease, jobId, position, result, dueAt }) =>
            this.sql.saveResult.run({ result: resultJson(result), dueAt: dueAt ?? null, answeredAt, jobId, position, lease }).changes > 0,
        ),
      ...webhooks.announceSteps,
      rememberVerdicts: (entries) => resultCache.remember(entries),
      // Only a job not completed before is counted, so a completion returned here is this batch's.
      countProcessed: (jobId, written, completedAt) => this.sql.countProcessed.get(written, written, completedAt, jobId)?.completed === 1,
      unknownsOf: (jobId) => this.sql.unknowns.all(jobId),
      isSandbox: (jobId) => this.sql.isSandbox.get(jobId)?.sandbox === 1,
      refundToOwner: (jobId, amount) => void users.giveBack(this.sql.ownerOf.get(jobId)!.user_id, amount, jobId),
    };
  }

  private nowMs(): number {
    return this.connection.now().getTime();
  }

  claimWork(request: ClaimRequest): WorkChunk | undefined {
    return this.connection.db.transaction(() => runNow(flows.claimWork(this.claimSteps, request, this.nowMs()))).immediate();
  }

  wakeDue(): number {
    return this.sql.wakeDue.run(this.nowMs()).changes;
  }

  renewLeases(leases: readonly string[], leaseMs: number): string[] {
    if (leases.length === 0) return [];
    return [...new Set(this.sql.renew.all(this.nowMs() + leaseMs, JSON.stringify(leases)).map((row) => row.lease_token))];
  }

  depth(): { pending: number; leased: number; waiting: number } {
    const now = this.nowMs();
    return this.sql.depth.get(now, now)!;
  }

  rescue(): number {
    return this.connection.db.transaction(() => runNow(flows.rescue(this.rescueSteps, this.nowMs()))).immediate();
  }

  releaseLeases(leases: readonly string[]): void {
    if (leases.length > 0) this.sql.release.run(JSON.stringify(leases));
  }

  saveResults(results: readonly LeasedResult[], policy?: SavePolicy): SavedResults {
    if (results.length === 0) return { completedJobs: 0, refunded: 0 };
    return this.connection.db.transaction(() => runNow(flows.saveResults(this.resultSteps, results, this.connection.timestamp(), policy))).immediate();
  }
}
