import { randomUUID } from 'node:crypto';
import { toReceiver, type ReceiverRow } from '../rows/receivers.js';
import type { EvidenceReceiver, NewReceiver } from '../receiver-model.js';
import { isForeignKeyViolation, noSuchUser, type Database } from './database.js';

/** What noteReceived sets, by what happened. */
const NOTED_COLUMN = { confirmed: 'confirmed_at', events: 'last_event_at' } as const;

/** Evidence receivers (store.ts EvidenceReceiverStore). */
export class PostgresReceivers {
  constructor(private readonly db: Database) {}

  async createReceiver(userId: number, { kind, urlHash, publicKey, topicArn }: NewReceiver, limit = Infinity): Promise<EvidenceReceiver | undefined> {
    try {
      return await this.db.transaction(async (sql) => {
        // The user's row held: of two creations at once, the second counts the first's receiver.
        await sql.run('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
        const { count } = (await sql.row<{ count: number }>('SELECT count(*)::int AS count FROM evidence_receivers WHERE user_id = $1', [userId]))!;
        if (count >= limit) return undefined;
        const row = await sql.row<ReceiverRow>(
          'INSERT INTO evidence_receivers (id, user_id, kind, url_hash, public_key, topic_arn, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *',
          [randomUUID(), userId, kind, urlHash, publicKey, topicArn, this.db.timestamp()],
        );
        return toReceiver(row!);
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw noSuchUser(userId);
      throw error;
    }
  }

  async listReceivers(userId: number): Promise<EvidenceReceiver[]> {
    const rows = await this.db.sql.rows<ReceiverRow>('SELECT * FROM evidence_receivers WHERE user_id = $1 ORDER BY created_at, id', [userId]);
    return rows.map(toReceiver);
  }

  async findReceiverByHash(urlHash: string): Promise<EvidenceReceiver | undefined> {
    const row = await this.db.sql.row<ReceiverRow>('SELECT * FROM evidence_receivers WHERE url_hash = $1', [urlHash]);
    return row && toReceiver(row);
  }

  async removeReceiver(userId: number, receiverId: string): Promise<boolean> {
    return (await this.db.sql.run('DELETE FROM evidence_receivers WHERE id = $1 AND user_id = $2', [receiverId, userId])) > 0;
  }

  async noteReceived(receiverId: string, what: 'confirmed' | 'events'): Promise<void> {
    await this.db.sql.run(`UPDATE evidence_receivers SET ${NOTED_COLUMN[what]} = $1 WHERE id = $2`, [this.db.timestamp(), receiverId]);
  }
}
