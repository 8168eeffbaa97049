import type { DailyCredits, DashboardSession, ListUpload } from '../model.js';

/** The dashboard's rows as both schemas hold them, their mapping to the Store's records, and the SQL of its overview that both dialects share. */

export interface SessionRow {
  id_hash: string;
  user_id: number;
  csrf_secret: string;
  created_at: string;
  expires_at: string;
}

export interface UploadRow {
  id: string;
  user_id: number;
  file_name: string;
  content: Buffer;
  column_spec: string | null;
  job_id: string | null;
  created_at: string;
}

export const toSession = (row: SessionRow): DashboardSession => ({
  idHash: row.id_hash,
  userId: row.user_id,
  csrfSecret: row.csrf_secret,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** An upload not submitted yet as both dialects list it (length() is the bytes of a BLOB or bytea). */
export const PENDING_UPLOAD_COLUMNS = 'id, file_name AS "fileName", length(content) AS bytes, created_at AS "createdAt"';

export const toUpload = (row: UploadRow): ListUpload => ({
  id: row.id,
  userId: row.user_id,
  fileName: row.file_name,
  content: row.content,
  column: row.column_spec,
  jobId: row.job_id,
  createdAt: row.created_at,
});

/**
 * The ledger of one user summed by UTC day (the dashboard's overview), the same SQL in both
 * dialects but for the placeholders: `created_at` is ISO text, so its first 10 characters are the
 * day, and the (user_id, created_at) index reads only the days asked for.
 */
export const dailyCreditsSql = (user: string, since: string): string => `
  SELECT substr(created_at, 1, 10) AS day,
         sum(CASE WHEN reason IN ('verify', 'bulk') THEN -delta ELSE 0 END) AS charged,
         sum(CASE WHEN reason = 'refund' THEN delta ELSE 0 END) AS refunded,
         sum(CASE WHEN reason = 'grant' THEN delta ELSE 0 END) AS granted
  FROM ledger WHERE user_id = ${user} AND created_at >= ${since}
  GROUP BY 1 ORDER BY 1`;

/** A day's sums as the database gives them (PostgreSQL's bigint sums come as text). */
export interface DailyCreditsRow {
  day: string;
  charged: number | string;
  refunded: number | string;
  granted: number | string;
}

export const toDailyCredits = (row: DailyCreditsRow): DailyCredits => ({
  day: row.day,
  charged: Number(row.charged),
  refunded: Number(row.refunded),
  granted: Number(row.granted),
});

/**
 * The verdicts of one user's jobs completed since a time, by UTC day: `verdict` is the dialect's
 * expression for the stored result's verdict. Reads the jobs by the (user_id, created_at) index
 * and only their items: the job page's count per verdict, for a month of jobs.
 */
export const dailyVerdictsSql = (verdict: string, user: string, since: string): string => `
  SELECT substr(jobs.completed_at, 1, 10) AS day, ${verdict} AS verdict, count(*) AS count
  FROM jobs JOIN job_items ON job_items.job_id = jobs.id
  WHERE jobs.user_id = ${user} AND jobs.created_at >= ${since} AND jobs.completed_at >= ${since} AND job_items.result IS NOT NULL
  GROUP BY 1, 2 ORDER BY 1, 2`;
