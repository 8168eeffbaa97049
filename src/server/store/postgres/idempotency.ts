import { CLAIMED, idempotencyCutoff, toIdempotency, type IdempotencyRow } from '../rows/idempotency.js';
import type { IdempotencyKey, KeyedResponse } from '../model.js';
import type { Database, Statements } from './database.js';

/** Idempotency-Key claims and recorded responses. The `sql` argument is a transaction's, when part of one. */
export class PostgresIdempotency {
  constructor(private readonly db: Database) {}

  async saveIdempotency(record: Omit<KeyedResponse, 'createdAt'>, sql: Statements = this.db.sql): Promise<void> {
    await sql.run('DELETE FROM idempotency WHERE created_at < $1', [idempotencyCutoff(this.db.now())]);
    await this.writeIdempotency(sql, record);
  }

  /** The claim or response holding this key within its 24 h, whatever request it was for. */
  async liveKey(sql: Statements, userId: number, { key, route }: IdempotencyKey): Promise<KeyedResponse | undefined> {
    const row = await sql.row<IdempotencyRow>('SELECT * FROM idempotency WHERE user_id = $1 AND key = $2 AND route = $3 AND created_at >= $4', [
      userId,
      key,
      route,
      idempotencyCutoff(this.db.now()),
    ]);
    return row && toIdempotency(row);
  }

  async writeIdempotency(sql: Statements, record: Omit<KeyedResponse, 'createdAt'>): Promise<void> {
    const { userId, route, key, requestHash, statusCode, body, chargeId = null } = record;
    await sql.run(
      `INSERT INTO idempotency (user_id, route, key, request_hash, status_code, body, charge_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (user_id, route, key) DO UPDATE SET
         request_hash = excluded.request_hash, status_code = excluded.status_code,
         body = excluded.body, charge_id = excluded.charge_id, created_at = excluded.created_at`,
      [userId, route, key, requestHash, statusCode, body, chargeId, this.db.timestamp()],
    );
  }

  /** Drops the key's claim (never a recorded response), so a retry runs afresh. */
  async releaseClaim(sql: Statements, userId: number, { key, route }: Omit<IdempotencyKey, 'requestHash'>): Promise<void> {
    await sql.run(`DELETE FROM idempotency WHERE user_id = $1 AND key = $2 AND route = $3 AND status_code = ${CLAIMED}`, [userId, key, route]);
  }
}
