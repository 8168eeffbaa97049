import { randomUUID } from 'node:crypto';
import type { VerificationResult } from '../../../engine/types.js';
import { replayedJob, toJob, type JobRow } from '../records.js';
import { itemDomain, type IdempotencyKey, type JobCreation, type JobProgress, type ResultPageRequest, type StoredResult } from '../store.js';
import type { Database, Statements } from './database.js';
import type { IdempotencyRecords } from './idempotency.js';
import type { UserRecords } from './users.js';

/** Bulk jobs, their items and the results the runner stores for them. */
export class JobRecords {
  constructor(
    private readonly db: Database,
    private readonly users: UserRecords,
    private readonly idempotency: IdempotencyRecords,
  ) {}

  createJob(userId: number, emails: string[], idempotency?: IdempotencyKey): Promise<JobCreation> {
    return this.db.transaction(async (sql): Promise<JobCreation> => {
      if (idempotency) {
        // The user's row is held until commit: a repeat of the key on any node waits, then finds this job.
        await this.users.lockUser(sql, userId);
        const earlier = await this.idempotency.liveKey(sql, userId, idempotency);
        if (earlier) return replayedJob(earlier);
      }
      const jobId = randomUUID();
      if ((await this.users.takeCredits(sql, userId, emails.length, 'bulk', jobId)) === undefined) {
        return this.users.shortOf(sql, userId, emails.length);
      }
      const createdAt = this.db.timestamp();
      await sql.run('INSERT INTO jobs (id, user_id, total, created_at, completed_at) VALUES ($1, $2, $3, $4, $5)', [
        jobId, userId, emails.length, createdAt, emails.length === 0 ? createdAt : null,
      ]);
      // One statement for the whole list, its order giving the positions.
      await sql.run(
        `INSERT INTO job_items (job_id, position, email, domain)
         SELECT $1, ordinality - 1, email, domain FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS list (email, domain)`,
        [jobId, emails, emails.map(itemDomain)],
      );
      if (idempotency) {
        const ack = { userId, ...idempotency, statusCode: 200, body: JSON.stringify({ jobId, queued: emails.length }) };
        await this.idempotency.saveIdempotency(ack, sql);
      }
      return { ok: true, jobId, queued: emails.length, replayed: false };
    });
  }

  async getJob(userId: number, jobId: string, sql: Statements = this.db.sql): Promise<JobProgress | undefined> {
    const row = await sql.row<JobRow>('SELECT * FROM jobs WHERE id = $1 AND user_id = $2', [jobId, userId]);
    return row && toJob(row);
  }

  getJobWithResults(userId: number, jobId: string): Promise<{ job: JobProgress; results: VerificationResult[] } | undefined> {
    // One snapshot: a batch of results landing between the two reads cannot make them disagree.
    return this.db.transaction(async (sql) => {
      const job = await this.getJob(userId, jobId, sql);
      if (!job) return undefined;
      const rows = await sql.rows<{ result: string }>(
        'SELECT result FROM job_items WHERE job_id = $1 AND result IS NOT NULL ORDER BY position',
        [jobId],
      );
      return { job, results: rows.map((row) => JSON.parse(row.result) as VerificationResult) };
    }, 'repeatable read');
  }

  async readResults(jobId: string, { after, limit, verdicts }: ResultPageRequest): Promise<StoredResult[]> {
    // A page of results: a range of the primary key; the verdict is read from the stored JSON.
    return this.db.sql.rows<StoredResult>(
      `SELECT position, result AS json FROM job_items
       WHERE job_id = $1 AND position > $2 AND result IS NOT NULL AND ($4::text[] IS NULL OR result::json ->> 'result' = ANY ($4))
       ORDER BY position LIMIT $3`,
      [jobId, after, limit, verdicts ?? null],
    );
  }
}
