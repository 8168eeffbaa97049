import { randomUUID } from 'node:crypto';
import type { VerificationResult } from '../../../engine/types.js';
import { replayedJob, toJob, type JobRow } from '../records.js';
import { itemDomain, type IdempotencyKey, type JobCreation, type JobProgress, type ResultPageRequest, type StoredResult } from '../store.js';
import type { Connection } from './database.js';
import type { IdempotencyRecords } from './idempotency.js';
import type { UserRecords } from './users.js';

/** Bulk jobs, their items and the results the runner stores for them. */
export class JobRecords {
  private readonly sql;

  constructor(
    private readonly connection: Connection,
    private readonly users: UserRecords,
    private readonly idempotency: IdempotencyRecords,
  ) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      insertJob: prepare('INSERT INTO jobs (id, user_id, total, created_at, completed_at) VALUES (?, ?, ?, ?, ?)'),
      // One statement for the whole list: SQLite walks the JSON array of [email, domain] itself, far faster than a call per row.
      insertItems: prepare(
        "INSERT INTO job_items (job_id, position, email, domain) SELECT ?, key, value ->> 0, value ->> 1 FROM json_each(?)",
      ),
      jobOf: prepare<JobRow>('SELECT * FROM jobs WHERE id = ? AND user_id = ?'),
      resultsOf: prepare<{ result: string }>(
        'SELECT result FROM job_items WHERE job_id = ? AND result IS NOT NULL ORDER BY position',
      ),
      // A page of results: a range of the primary key; the verdict is read from the stored JSON.
      resultPage: prepare<StoredResult>(
        'SELECT position, result AS json FROM job_items WHERE job_id = ? AND position > ? AND result IS NOT NULL ORDER BY position LIMIT ?',
      ),
      resultPageOf: prepare<StoredResult>(
        `SELECT position, result AS json FROM job_items
         WHERE job_id = ? AND position > ? AND result IS NOT NULL AND result ->> '$.result' IN (SELECT value FROM json_each(?))
         ORDER BY position LIMIT ?`,
      ),
    };
  }

  createJob(userId: number, emails: string[], idempotency?: IdempotencyKey): JobCreation {
    return this.connection.db.transaction((): JobCreation => {
      if (idempotency) {
        const earlier = this.idempotency.liveKey(userId, idempotency);
        if (earlier) return replayedJob(earlier);
      }
      const jobId = randomUUID();
      if (this.users.takeCredits(userId, emails.length, 'bulk', jobId) === undefined) return this.users.shortOf(userId, emails.length);
      const createdAt = this.connection.timestamp();
      this.sql.insertJob.run(jobId, userId, emails.length, createdAt, emails.length === 0 ? createdAt : null);
      this.sql.insertItems.run(jobId, JSON.stringify(emails.map((email) => [email, itemDomain(email)])));
      if (idempotency) {
        this.idempotency.saveIdempotency({ userId, ...idempotency, statusCode: 200, body: JSON.stringify({ jobId, queued: emails.length }) });
      }
      return { ok: true, jobId, queued: emails.length, replayed: false };
    }).immediate();
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
}
