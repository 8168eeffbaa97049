import { API_SCOPES } from '../../wire/contract.js';
import type { ApiTokenRecord, DailyCredits, TokenGrant, DashboardSession, IdempotencyRecord, JobCreation, JobProgress, JobSummary, LedgerEntry, ListUpload, User } from './model.js';
import { IDEMPOTENCY_CLAIM_TTL_MS, IDEMPOTENCY_TTL_MS } from './model.js';

/**
 * What both implementations share below the Store interface: the rows as the schemas hold them
 * (the same columns in SQLite and PostgreSQL), their mapping to the interface's records, and the
 * few rules about stored records that do not depend on the database.
 */

export interface UserRow {
  id: number;
  email: string;
  password_hash: string | null;
  balance: number;
  rate_limit: number;
  rate_window_seconds: number;
  created_at: string;
}

export interface LedgerRow {
  user_id: number;
  delta: number;
  balance_after: number;
  reason: LedgerEntry['reason'];
  job_id: string | null;
  created_at: string;
}

export interface TokenRow {
  id: string;
  user_id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
  /** The token's scopes, space-separated (docs/api.md "Token scopes"). */
  scopes: string;
  expires_at: string | null;
}

export interface JobRow {
  id: string;
  user_id: number;
  name: string | null;
  total: number;
  processed: number;
  completed_at: string | null;
}

export interface IdempotencyRow {
  user_id: number;
  route: string;
  key: string;
  request_hash: string;
  status_code: number;
  body: string;
  charge_id: number | null;
  created_at: string;
}

export const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  balance: row.balance,
  rateLimit: row.rate_limit,
  rateWindowSeconds: row.rate_window_seconds,
  createdAt: row.created_at,
});

export const toLedger = (row: LedgerRow): LedgerEntry => ({
  userId: row.user_id,
  delta: row.delta,
  balanceAfter: row.balance_after,
  reason: row.reason,
  jobId: row.job_id,
  createdAt: row.created_at,
});

export const toToken = (row: TokenRow): ApiTokenRecord => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  scopes: API_SCOPES.filter((scope) => row.scopes.split(' ').includes(scope)),
  expiresAt: row.expires_at,
});

/** A grant's scopes as the `scopes` column holds them. */
export const scopesColumn = (grant: TokenGrant): string => API_SCOPES.filter((scope) => grant.scopes.includes(scope)).join(' ');

export const toJob = (row: JobRow): JobProgress => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  status: row.completed_at === null ? 'processing' : 'completed',
  total: row.total,
  processed: row.processed,
});

export const toIdempotency = (row: IdempotencyRow): IdempotencyRecord => ({
  userId: row.user_id,
  route: row.route,
  key: row.key,
  requestHash: row.request_hash,
  statusCode: row.status_code,
  body: row.body,
  chargeId: row.charge_id,
  createdAt: row.created_at,
});

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

export interface JobSummaryRow extends JobRow {
  created_at: string;
  file_name: string | null;
}

export const toSession = (row: SessionRow): DashboardSession => ({
  idHash: row.id_hash,
  userId: row.user_id,
  csrfSecret: row.csrf_secret,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export const toUpload = (row: UploadRow): ListUpload => ({
  id: row.id,
  userId: row.user_id,
  fileName: row.file_name,
  content: row.content,
  column: row.column_spec,
  jobId: row.job_id,
  createdAt: row.created_at,
});

export const toJobSummary = (row: JobSummaryRow): JobSummary => ({ ...toJob(row), createdAt: row.created_at, fileName: row.file_name });

/** The status stored for a key that is claimed by a running request and has no response yet. */
export const CLAIMED = 0;

/** A token's "last used" time is rewritten at most this often, so authenticating is not a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** True when a token's stored "last used" time is due to be rewritten at `now`. */
export function lastUseIsStale(lastUsedAt: string | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - Date.parse(lastUsedAt) >= LAST_USED_RESOLUTION_MS;
}

/** Records older than this (ISO time) are past their 24 h and ignored. */
export function idempotencyCutoff(now: Date): string {
  return new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString();
}

/** A claim this old was left by a process that died after charging (see Store.chargeWithKey). */
export function claimIsAbandoned(claim: IdempotencyRecord, now: Date): boolean {
  return now.getTime() - Date.parse(claim.createdAt) >= IDEMPOTENCY_CLAIM_TTL_MS;
}

/** The job a bulk submission's recorded acknowledgement names: what a replay of its key answers. */
export function replayedJob(record: IdempotencyRecord): JobCreation {
  const ack = JSON.parse(record.body) as Partial<{ jobId: string; queued: number }>;
  if (typeof ack.jobId !== 'string' || typeof ack.queued !== 'number') throw new Error(`the record of Idempotency-Key ${record.key} holds no job`);
  return { ok: true, jobId: ack.jobId, queued: ack.queued, replayed: true };
}

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
