import type { JobProgress, JobSummary } from '../model.js';

/** A job as both schemas hold it, and its mapping to the Store's records. */

export interface JobRow {
  id: string;
  user_id: number;
  name: string | null;
  total: number;
  processed: number;
  completed_at: string | null;
}

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
});

export const toJobSummary = (row: JobSummaryRow): JobSummary => ({ ...toJob(row), createdAt: row.created_at, fileName: row.file_name });
