import { resultJson } from '../../../engine/core/types.js';
import { distinctEntries, newestPerAddress, type CacheRow } from '../rows/result-cache.js';
import type { CachedResult, CacheEntry } from '../model.js';
import type { Connection } from './database.js';

/** Verdicts kept for reuse (ResultCacheStore) in the SQLite file. */
export class SqliteResultCache {
  private readonly sql;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      recall: prepare<CacheRow>(
        `SELECT address_key, user_id, result, verified_at FROM result_cache
         WHERE address_key IN (SELECT value FROM json_each(@keys)) AND fresh_until > @now AND (@userId IS NULL OR user_id = @userId)`,
      ),
      // `WHERE true`: SQLite needs it to read ON CONFLICT after a SELECT as the upsert clause.
      remember: prepare(
        `INSERT INTO result_cache (address_key, user_id, result, verified_at, fresh_until)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?) WHERE true
         ON CONFLICT (address_key, user_id) DO UPDATE
           SET result = excluded.result, verified_at = excluded.verified_at, fresh_until = excluded.fresh_until`,
      ),
      dropStale: prepare('DELETE FROM result_cache WHERE fresh_until <= ?'),
      count: prepare<{ entries: number }>('SELECT count(*) AS entries FROM result_cache'),
      dropLeastFresh: prepare(
        `DELETE FROM result_cache WHERE (address_key, user_id) IN
           (SELECT address_key, user_id FROM result_cache ORDER BY fresh_until LIMIT ?)`,
      ),
    };
  }

  recall(addressKeys: readonly string[], now: number, userId?: number): Map<string, CachedResult> {
    if (addressKeys.length === 0) return new Map();
    return newestPerAddress(this.sql.recall.all({ keys: JSON.stringify(addressKeys), now, userId: userId ?? null }));
  }

  remember(entries: readonly CacheEntry[]): void {
    if (entries.length === 0) return;
    const rows = distinctEntries(entries).map((entry) => [entry.addressKey, entry.userId, resultJson(entry.result), entry.verifiedAt, entry.freshUntil]);
    this.sql.remember.run(JSON.stringify(rows));
  }

  prune(now: number, maxEntries: number): number {
    return this.connection.db
      .transaction(() => {
        const stale = this.sql.dropStale.run(now).changes;
        const beyond = this.sql.count.get()!.entries - maxEntries;
        return stale + (beyond > 0 ? this.sql.dropLeastFresh.run(beyond).changes : 0);
      })
      .immediate();
  }
}
