import { randomUUID } from 'node:crypto';
import type { VerificationResult } from '../../../engine/core/types.js';
import { addressDomain } from '../../../engine/checks/format.js';
import * as flows from '../flows/credits.js';
import type { JobSteps } from '../flows/credits.js';
import { deleteJob, type DeletionSteps } from '../flows/deletion.js';
import { runAwaiting } from '../flows/flow.js';
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
import { afterListedJob, JOB_LIST_ORDER, toJob, toJobSummary, WAITING_COLUMNS, type JobRow, type JobSummaryRow } from '../rows/jobs.js';
import type { Database, Statements } from './database.js';
import type { PostgresIdempotency } from './idempotency.js';
import type { PostgresAccounts } from './accounts.js';
import { WORK_CHANNEL, WORK_DELETED } from './changes.js';

/** Bulk jobs, their items and the results the runner stores for them. */
export class PostgresJobs {
  constructor(
    private readonly db: Database,
    private readonly users: PostgresAccounts,
    private readonly idempotency: PostgresIdempotency,
  ) {}

  createJob(userId: number, emails: string[], idempotency?: IdempotencyKey, details?: JobDetails): Promise<JobCreation> {
    // The engine's domain of each address (one rule, see addressDomain): a chunk is what the engine verifies as one domain.
    const job = { id: randomUUID(), userId, emails, domains: emails.map(addressDomain), createdAt: this.db.timestamp(), idempotency, details };
    return this.db.transaction((sql) => runAwaiting(flows.createJob(this.steps(sql), job)));
  }

  private steps(sql: Statements): JobSteps {
    return {
      ...this.users.steps(sql),
      insertJob: async ({ id, userId, name, fresh, total, createdAt, completedAt, settleBy, sandbox }) =>
        void (await sql.run(
          'INSERT INTO jobs (id, user_id, name, fresh, total, created_at, completed_at, settle_by, sandbox) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
          [id, userId, name, fresh, total, createdAt, completedAt, settleBy, sandbox],
        )),
      // One statement for the whole list, its order giving the positions.
      insertItems: async (jobId, emails, domains) => {
        await sql.run(
          `INSERT INTO job_items (job_id, position, email, domain)
           SELECT $1, ordinality - 1, email, domain FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS list (email, domain)`,
          [jobId, emails, domains],
        );
        // Delivered at commit (never for a rolled-back job): every node's runner looks at once (Store.onNewWork).
        if (emails.length > 0) await sql.run(`SELECT pg_notify('${WORK_CHANNEL}', '')`);
      },
      saveKey: (record) => this.idempotency.saveIdempotency(record, sql),
    };
  }

  async getJob(userId: number, jobId: string, sql: Statements = this.db.sql): Promise<JobProgress | undefined> {
    const row = await sql.row<JobRow>(`SELECT jobs.*, ${WAITING_COLUMNS} FROM jobs WHERE id = $1 AND user_id = $2`, [jobId, userId]);
    return row && toJob(row);
  }

  getJobWithResults(userId: number, jobId: string): Promise<{ job: JobProgress; results: VerificationResult[] } | undefined> {
    // One snapshot: a batch of results landing between the two reads cannot make them disagree.
    return this.db.transaction(async (sql) => {
      const job = await this.getJob(userId, jobId, sql);
      if (!job) return undefined;
      const rows = await sql.rows<{ result: string }>('SELECT result FROM job_items WHERE job_id = $1 AND result IS NOT NULL ORDER BY position', [jobId]);
      return { job, results: rows.map((row) => JSON.parse(row.result) as VerificationResult) };
    }, 'repeatable read');
  }

  async readResults(jobId: string, { after, limit, verdicts }: ResultPageRequest): Promise<StoredResult[]> {
    // A page of results: a range of the primary key; the verdict is read from the stored JSON.
    return this.db.sql.rows<StoredResult>(
      `SELECT position, result AS json, due_at IS NOT NULL AS waiting FROM job_items
       WHERE job_id = $1 AND position > $2 AND result IS NOT NULL AND ($4::text[] IS NULL OR result::json ->> 'result' = ANY ($4))
       ORDER BY position LIMIT $3`,
      [jobId, after, limit, verdicts ?? null],
    );
  }

  /** On `sql`, a transaction's connection, when asked inside one (a completing batch announces its job's counts). */
  async verdictCounts(jobId: string, sql: Statements = this.db.sql): Promise<VerdictCount[]> {
    const rows = await sql.rows<{ verdict: VerdictCount['verdict']; count: string }>(
      "SELECT result::json ->> 'result' AS verdict, count(*) AS count FROM job_items WHERE job_id = $1 AND result IS NOT NULL GROUP BY 1",
      [jobId],
    );
    return rows.map((row) => ({ verdict: row.verdict, count: Number(row.count) }));
  }

  deleteJob(userId: number, jobId: string): Promise<{ refunded: number } | undefined> {
    return this.db.transaction((sql) => runAwaiting(deleteJob(this.deletionSteps(sql), userId, jobId)));
  }

  private deletionSteps(sql: Statements): DeletionSteps {
    return {
      deleteItems: async (jobId) => {
        await sql.run('DELETE FROM job_items WHERE job_id = $1', [jobId]);
        // Delivered at commit: every node's runner stops asking about the job's addresses at once (Store.onWorkDeleted).
        await sql.run(`SELECT pg_notify('${WORK_CHANNEL}', '${WORK_DELETED}')`);
      },
      emailsOf: async (jobId) => (await sql.rows<{ email: string }>('SELECT email FROM job_items WHERE job_id = $1', [jobId])).map((row) => row.email),
      forgetCached: async (userId, keys) =>
        void (await sql.run('DELETE FROM result_cache WHERE user_id = $1 AND address_key = ANY ($2::text[])', [userId, keys])),
      jobOf: (userId, jobId) =>
        sql.row<{ total: number; processed: number; completed: boolean; sandbox: boolean }>(
          'SELECT total, processed, completed_at IS NOT NULL AS completed, sandbox FROM jobs WHERE id = $1 AND user_id = $2',
          [jobId, userId],
        ),
      deleteJob: async (jobId) => void (await sql.run('DELETE FROM jobs WHERE id = $1', [jobId])),
      refund: async (userId, amount, jobId) => void (await this.users.giveBack(sql, userId, amount, jobId)),
    };
  }

  deleteFinishedBefore(before: string, limit: number): Promise<number> {
    // The jobs are locked as they are chosen (SKIP LOCKED): two nodes deleting at once take different ones.
    return this.db.transaction((sql) =>
      sql.run(
        `DELETE FROM jobs WHERE id IN (
           SELECT id FROM jobs WHERE completed_at IS NOT NULL AND completed_at < $1 ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [before, limit],
      ),
    );
  }

  async listJobs(userId: number, limit: number, after?: JobListPlace, sandbox?: boolean): Promise<JobSummary[]> {
    const place = after ? ` AND ${afterListedJob('$4', '$5')}` : '';
    const rows = await this.db.sql.rows<JobSummaryRow>(
      `SELECT jobs.*, ${WAITING_COLUMNS}, list_uploads.file_name FROM jobs LEFT JOIN list_uploads ON list_uploads.job_id = jobs.id
       WHERE jobs.user_id = $1 AND ($3::boolean IS NULL OR jobs.sandbox = $3)${place} ${JOB_LIST_ORDER} LIMIT $2`,
      [userId, limit, sandbox ?? null, ...(after ? [after.createdAt, after.id] : [])],
    );
    return rows.map(toJobSummary);
  }
}
