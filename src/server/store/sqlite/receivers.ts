import { randomUUID } from 'node:crypto';
import { toReceiver, type ReceiverRow } from '../rows/receivers.js';
import type { EvidenceReceiver, NewReceiver } from '../receiver-model.js';
import type { Connection } from './database.js';

/** Evidence receivers (store.ts EvidenceReceiverStore). */
export class SqliteReceivers {
  private readonly sql;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      count: prepare<{ count: number }>('SELECT count(*) AS count FROM evidence_receivers WHERE user_id = ?'),
      insert: prepare<ReceiverRow>(
        'INSERT INTO evidence_receivers (id, user_id, kind, url_hash, public_key, topic_arn, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
      ),
      of: prepare<ReceiverRow>('SELECT * FROM evidence_receivers WHERE user_id = ? ORDER BY created_at, id'),
      byHash: prepare<ReceiverRow>('SELECT * FROM evidence_receivers WHERE url_hash = ?'),
      remove: prepare('DELETE FROM evidence_receivers WHERE id = ? AND user_id = ?'),
      confirmed: prepare('UPDATE evidence_receivers SET confirmed_at = ? WHERE id = ?'),
      events: prepare('UPDATE evidence_receivers SET last_event_at = ? WHERE id = ?'),
    };
  }

  createReceiver(userId: number, { kind, urlHash, publicKey, topicArn }: NewReceiver, limit = Infinity): EvidenceReceiver | undefined {
    return this.connection.db
      .transaction(() => {
        if (this.sql.count.get(userId)!.count >= limit) return undefined;
        return toReceiver(this.sql.insert.get(randomUUID(), userId, kind, urlHash, publicKey, topicArn, this.connection.timestamp())!);
      })
      .immediate();
  }

  listReceivers(userId: number): EvidenceReceiver[] {
    return this.sql.of.all(userId).map(toReceiver);
  }

  findReceiverByHash(urlHash: string): EvidenceReceiver | undefined {
    const row = this.sql.byHash.get(urlHash);
    return row && toReceiver(row);
  }

  removeReceiver(userId: number, receiverId: string): boolean {
    return this.sql.remove.run(receiverId, userId).changes > 0;
  }

  noteReceived(receiverId: string, what: 'confirmed' | 'events'): void {
    this.sql[what].run(this.connection.timestamp(), receiverId);
  }
}
