import { randomUUID } from 'node:crypto';
import type { VerificationResult } from '../../../engine/core/types.js';
import { addressDomain } from '../../../engine/checks/format.js';
import * as flows from '../flows/credits.js';
import type { JobSteps } from '../flows/credits.js';
import { deleteJob, type DeletionSteps } from '../flows/deletion.js';
import { runNow } from '../flows/flow.js';
import { afterListedJob, JOB_LIST_ORDER, toJob, toJobSummary, WAITING_COLUMNS, type JobRow, type JobSummaryRow } from '../rows/jobs.js';
import {
  type IdempotencyKey,
  type JobCreation,
  type JobDetails,
  type JobProgress,
  type JobListPlace,
  type JobSummary,
  type ResultPageRequest,
  type StoredResult,
  type VerdictCount,
} from '../model.js';
import type { Connection } from './database.js';
import type { SqliteIdempotency } from './idempotency.js';
import type { SqliteAccounts } from './accounts.js';

/** Bulk jobs, their items and the results the runner stores for them. */
export class SqliteJobs {
  private readonly sql;
  private readonly steps: JobSteps;
  private readonly deletionSteps: DeletionSteps;

  constructor(
    private readonly connection: Connection,
    users: SqliteAccounts,
    idempotency: SqliteIdempotency,
  ) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      insertJob: prepare('INSERT INTO jobs (id, user_id, name, fresh, total, created_at, completed_at, settle_by, sandbox) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
      // One statement for the whole list: SQLite walks the JSON array of [email, domain] itself, far faster than a call per row.
      insertItems: prepare('INSERT INTO job_items (job_id, position, email, domain) SELECT ?, key, value ->> 0, value ->> 1 FROM json_each(?)'),
      verdictCounts: prepare<VerdictCount>(
        `SELECT result ->> '$.result' AS verdict, count(*) AS count FROM job_items
         WHERE job_id = ? AND result IS NOT NULL GROUP BY 1`,
      ),
      jobsOf: prepare<JobSummaryRow>(
        `SELECT jobs.*, ${WAITING_COLUMNS}, list_uploads.file_name FROM jobs LEFT JOIN list_uploads ON list_uploads.job_id = jobs.id
         WHERE jobs.user_id = @userId AND (@sandbox IS NULL OR jobs.sandbox = @sandbox) ${JOB_LIST_ORDER} LIMIT @limit`,
      ),
      jobsAfter: prepare<JobSummaryRow>(
        `SELECT jobs.*, ${WAITING_COLUMNS}, list_uploads.file_name FROM jobs LEFT JOIN list_uploads ON list_uploads.job_id = jobs.id
         WHERE jobs.user_id = @userId AND (@sandbox IS NULL OR jobs.sandbox = @sandbox) AND ${afterListedJob('@createdAt', '@id')}
         ${JOB_LIST_ORDER} LIMIT @limit`,
      ),
      jobOf: prepare<JobRow>(`SELECT jobs.*, ${WAITING_COLUMNS} FROM jobs WHERE id = ? AND user_id = ?`),
      resultsOf: prepare<{ result: string }>('SELECT result FROM job_items WHERE job_id = ? AND result IS NOT NULL ORDER BY position'),
      // A page of results: a range of the primary key; the verdict is read from the stored JSON.
      resultPage: prepare<StoredResult>(
        'SELECT position, result AS json, due_at IS NOT NULL AS waiting FROM job_items WHERE job_id = ? AND position > ? AND result IS NOT NULL ORDER BY position LIMIT ?',
      ),
      resultPageOf: prepare<StoredResult>(
        `SELECT position, result AS json, due_at IS NOT NULL AS waiting FROM job_items
         WHERE job_id = ? AND position > ? AND result IS NOT NULL AND result ->> '$.result' IN (SELECT value FROM json_each(?))
         ORDER BY position LIMIT ?`,
      ),
      deleteItems: prepare('DELETE FROM job_items WHERE job_id = ?'),
      emailsOf: prepare<{ email: string }>('SELECT email FROM job_items WHERE job_id = ?'),
      forgetCached: prepare('DELETE FROM result_cache WHERE user_id = ? AND address_key IN (SELECT value FROM json_each(?))'),
      jobToDelete: prepare<{ total: number; processed: number; completed: number; sandbox: number }>(
        'SELECT total, processed, completed_at IS NOT NULL AS completed, sandbox FROM jobs WHERE id = ? AND user_id = ?',
      ),
      deleteJob: prepare('DELETE FROM jobs WHERE id = ?'),
      // Items first (the cascade would do it row by row through the foreign key), then the jobs.
      deleteFinishedItems: prepare(
        'DELETE FROM job_items WHERE job_id IN (SELECT id FROM jobs WHERE completed_at IS NOT NULL AND completed_at < ? ORDER BY completed_at LIMIT ?)',
      ),
      deleteFinished: prepare(
        'DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE completed_at IS NOT NULL AND completed_at < ? ORDER BY completed_at LIMIT ?)',
      ),
    };
    this.deletionSteps = {
      deleteItems: (jobId) => void this.sql.deleteItems.run(jobId),
      emailsOf: (jobId) => this.sql.emailsOf.all(jobId).map((row) => row.email),
      forgetCached: (userId, keys) => void this.sql.forgetCached.run(userId, JSON.stringify(keys)),
      jobOf: (userId, jobId) => {
        const row = this.sql.jobToDelete.get(jobId, userId);
        return row && { total: row.total, processed: row.processed, completed: row.completed === 1, sandbox: row.sandbox === 1 };
      },
      deleteJob: (jobId) => void this.sql.deleteJob.run(jobId),
      refund: (userId, amount, jobId) => void users.giveBack(userId, amount, jobId),
    };
    this.steps = {
      ...users.steps,
      insertJob: (job) =>
        void this.sql.insertJob.run(
          job.id,
          job.userId,
          job.name,
          job.fresh ? 1 : 0,
          job.total,
          job.createdAt,
          job.completedAt,
          job.settleBy,
          job.sandbox ? 1 : 0,
        ),
      insertItems: (jobId, emails, domains) => void this.sql.insertItems.run(jobId, JSON.stringify(emails.map((email, at) => [email, domains[at]]))),
      saveKey: (record) => idempotency.saveIdempotency(record),
    };
  }

  createJob(userId: number, emails: string[], idempotency?: IdempotencyKey, details?: JobDetails): JobCreation {
    // The engine's domain of each address (one rule, see addressDomain): a chunk is what the engine verifies as one domain.
    const job = { id: randomUUID(), userId, emails, domains: emails.map(addressDomain), createdAt: this.connection.timestamp(), idempotency, details };
    return this.connection.db.transaction(() => runNow(flows.createJob(this.steps, job))).immediate();
  }

  getJob(userId: number, jobId: string): JobProgress | undefined {
    const row = this.sql.jobOf.get(jobId, userId);
    return row && toJob(row);
  }

  getJobWithResults(userId: number, jobId: string): { job: JobProgress; results: VerificationResult[] } | undefined {
    // One read transaction: a batch of results landing between the two reads cannot make them disagree.
    return this.connection.db.transaction(() => {
      const job = this.getJob(userId, jobId);
      if (!job) return undefined;
      return { job, results: this.sql.resultsOf.all(jobId).map((row) => JSON.parse(row.result) as VerificationResult) };
    })();
  }

  readResults(jobId: string, { after, limit, verdicts }: ResultPageRequest): StoredResult[] {
    if (verdicts === undefined) return this.sql.resultPage.all(jobId, after, limit);
    return this.sql.resultPageOf.all(jobId, after, JSON.stringify(verdicts), limit);
  }

  verdictCounts(jobId: string): VerdictCount[] {
    return this.sql.verdictCounts.all(jobId);
  }

  listJobs(userId: number, limit: number, after?: JobListPlace, sandbox?: boolean): JobSummary[] {
    const only = sandbox === undefined ? null : Number(sandbox);
    const rows = after
      ? this.sql.jobsAfter.all({ userId, limit, sandbox: only, createdAt: after.createdAt, id: after.id })
      : this.sql.jobsOf.all({ userId, limit, sandbox: only });
    return rows.map(toJobSummary);
  }

  deleteJob(userId: number, jobId: string): { refunded: number } | undefined {
    const deleted = this.connection.db.transaction(() => runNow(deleteJob(this.deletionSteps, userId, jobId))).immediate();
    if (deleted) {
      this.connection.forgetDeleted();
      this.connection.workDeleted();
    }
    return deleted;
  }

  deleteFinishedBefore(before: string, limit: number): number {
    const deleted = this.connection.db
      .transaction(() => {
        this.sql.deleteFinishedItems.run(before, limit);
        return this.sql.deleteFinished.run(before, limit).changes;
      })
      .immediate();
    if (deleted > 0) this.connection.forgetDeleted();
    return deleted;
  }
}
