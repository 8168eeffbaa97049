import { CLAIMED, idempotencyCutoff, toIdempotency, type IdempotencyRow } from '../rows/idempotency.js';
import type { IdempotencyKey, KeyedResponse } from '../model.js';
import type { Connection } from './database.js';

/** Idempotency-Key claims and recorded responses. */
export class SqliteIdempotency {
  private readonly sql;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      // A claim or a recorded response: whatever holds the key.
      idempotencyOf: prepare<IdempotencyRow>('SELECT * FROM idempotency WHERE user_id = ? AND key = ? AND route = ? AND created_at >= ?'),
      releaseClaim: prepare(`DELETE FROM idempotency WHERE user_id = ? AND key = ? AND route = ? AND status_code = ${CLAIMED}`),
      upsertIdempotency: prepare(
        `INSERT INTO idempotency (user_id, route, key, request_hash, status_code, body, charge_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id, route, key) DO UPDATE SET
           request_hash = excluded.request_hash, status_code = excluded.status_code,
           body = excluded.body, charge_id = excluded.charge_id, created_at = excluded.created_at`,
      ),
      pruneIdempotency: prepare('DELETE FROM idempotency WHERE created_at < ?'),
    };
  }

  saveIdempotency(record: Omit<KeyedResponse, 'createdAt'>): void {
    this.connection.db
      .transaction(() => {
        this.sql.pruneIdempotency.run(idempotencyCutoff(this.connection.now()));
        this.writeIdempotency(record);
      })
      .immediate();
  }

  /** The claim or response holding this key within its 24 h, whatever request it was for. */
  liveKey(userId: number, { key, route }: IdempotencyKey): KeyedResponse | undefined {
    const row = this.sql.idempotencyOf.get(userId, key, route, idempotencyCutoff(this.connection.now()));
    return row && toIdempotency(row);
  }

  writeIdempotency(record: Omit<KeyedResponse, 'createdAt'>): void {
    const { userId, route, key, requestHash, statusCode, body, chargeId = null } = record;
    this.sql.upsertIdempotency.run(userId, route, key, requestHash, statusCode, body, chargeId, this.connection.timestamp());
  }

  /** Drops the key's claim (never a recorded response), so a retry runs afresh. */
  releaseClaim(userId: number, { key, route }: Omit<IdempotencyKey, 'requestHash'>): void {
    this.sql.releaseClaim.run(userId, key, route);
  }
}
