import type { KeyedResponse, JobCreation } from '../model.js';
import { IDEMPOTENCY_CLAIM_TTL_MS, IDEMPOTENCY_TTL_MS } from '../model.js';

/** An Idempotency-Key's row as both schemas hold it, its mapping to the Store's record, and the rules about stored keys that do not depend on the database. */

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

export const toIdempotency = (row: IdempotencyRow): KeyedResponse => ({
  userId: row.user_id,
  route: row.route,
  key: row.key,
  requestHash: row.request_hash,
  statusCode: row.status_code,
  body: row.body,
  chargeId: row.charge_id,
  createdAt: row.created_at,
});

/** The status stored for a key that is claimed by a running request and has no response yet. */
export const CLAIMED = 0;

/** Records older than this (ISO time) are past their 24 h and ignored. */
export function idempotencyCutoff(now: Date): string {
  return new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString();
}

/** A claim this old was left by a process that died after charging (see Store.chargeWithKey). */
export function claimIsAbandoned(claim: KeyedResponse, now: Date): boolean {
  return now.getTime() - Date.parse(claim.createdAt) >= IDEMPOTENCY_CLAIM_TTL_MS;
}

/** The job a bulk submission's recorded acknowledgement names: what a replay of its key answers. */
export function replayedJob(record: KeyedResponse): JobCreation {
  const ack = JSON.parse(record.body) as Partial<{ jobId: string; queued: number }>;
  if (typeof ack.jobId !== 'string' || typeof ack.queued !== 'number') throw new Error(`the record of Idempotency-Key ${record.key} holds no job`);
  return { ok: true, jobId: ack.jobId, queued: ack.queued, replayed: true };
}
