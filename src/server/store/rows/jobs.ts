import type { JobProgress, JobSummary } from '../model.js';

/** A job as both schemas hold it, and its mapping to the Store's records. */

export interface JobRow {
  id: string;
  user_id: number;
  name: string | null;
  total: number;
  processed: number;
  completed_at: string | null;
  /** Read with WAITING_COLUMNS (PostgreSQL's count arrives as text). */
  waiting: number | string;
  /** Epoch ms, or null. */
  next_attempt_at: number | null;
  /** SQLite says 0 or 1. */
  sandbox: boolean | number;
}

/**
 * A job's waiting addresses and the earliest of their due times, as columns beside `jobs.*`: a
 * range of the job_items_waiting index each.
 */
export const WAITING_COLUMNS = `(SELECT count(*) FROM job_items w WHERE w.job_id = jobs.id AND w.due_at IS NOT NULL) AS waiting,
  (SELECT min(w.due_at) FROM job_items w WHERE w.job_id = jobs.id AND w.due_at IS NOT NULL) AS next_attempt_at`;

export interface JobSummaryRow extends JobRow {
  created_at: string;
  file_name: string | null;
}

export const toJob = (row: JobRow): JobProgress => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  status: row.completed_at === null ? 'processing' : 'completed',
  total: row.total,
  processed: row.processed,
  waiting: Number(row.waiting),
  nextAttemptAt: row.next_attempt_at === null ? null : new Date(Number(row.next_attempt_at)).toISOString(),
  sandbox: Boolean(row.sandbox),
});

/** The order of a user's job list, and where a page after a job starts (newest first, then by id). */
export const JOB_LIST_ORDER = 'ORDER BY jobs.created_at DESC, jobs.id';
export const afterListedJob = (createdAt: string, id: string) => `(jobs.created_at < ${createdAt} OR (jobs.created_at = ${createdAt} AND jobs.id > ${id}))`;

export const toJobSummary = (row: JobSummaryRow): JobSummary => ({ ...toJob(row), createdAt: row.created_at, fileName: row.file_name });
