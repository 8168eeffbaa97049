import type { LedgerEntry, User } from '../model.js';

/** A user and a ledger row as both schemas hold them (the same columns in SQLite and PostgreSQL), and their mapping to the Store's records. */

export interface UserRow {
  id: number;
  email: string;
  password_hash: string | null;
  balance: number;
  rate_limit: number;
  rate_window_seconds: number;
  created_at: string;
  session_epoch: string;
}

export interface LedgerRow {
  id: number;
  user_id: number;
  delta: number;
  balance_after: number;
  reason: LedgerEntry['reason'];
  job_id: string | null;
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
  sessionEpoch: row.session_epoch,
});

export const toLedger = (row: LedgerRow): LedgerEntry => ({
  userId: row.user_id,
  delta: row.delta,
  balanceAfter: row.balance_after,
  reason: row.reason,
  jobId: row.job_id,
  createdAt: row.created_at,
});
