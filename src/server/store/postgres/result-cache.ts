import { resultJson } from '../../../engine/core/types.js';
import { distinctEntries, newestPerAddress, type CacheRow } from '../rows/result-cache.js';
import type { CachedResult, CacheEntry } from '../model.js';
import type { Database, Statements } from './database.js';

/** Verdicts kept for reuse (ResultCacheStore), shared by every node of the database. */
export class PostgresResultCache {
  constructor(private readonly db: Database) {}

  async recall(addressKeys: readonly string[], now: number, userId?: number): Promise<Map<string, CachedResult>> {
    if (addressKeys.length === 0) return new Map();
    // Freshness is checked here, not in the statement: given `fresh_until > now`, a planner whose
    // statistics predate the newest verdicts (a new database, a burst of them) walked the freshness
    // index over every fresh verdict (10,000 rows, milliseconds, for each lookup) instead of
    // seeking the keys asked for.
    const rows = await this.db.sql.rows<CacheRow & { fresh_until: string }>(
      `SELECT address_key, user_id, result, verified_at, fresh_until FROM result_cache
       WHERE address_key = ANY ($1::text[]) AND ($2::integer IS NULL OR user_id = $2)`,
      [addressKeys, userId ?? null],
    );
    return newestPerAddress(rows.filter((row) => Number(row.fresh_until) > now));
  }

  /** On `sql`, a transaction's connection, when asked inside one (a batch of results keeping their verdicts). */
  async remember(entries: readonly CacheEntry[], sql: Statements = this.db.sql): Promise<void> {
    if (entries.length === 0) return;
    const rows = distinctEntries(entries);
    await sql.run(
      `INSERT INTO result_cache (address_key, user_id, result, verified_at, fresh_until)
       SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::bigint[])
       ON CONFLICT (address_key, user_id) DO UPDATE
         SET result = excluded.result, verified_at = excluded.verified_at, fresh_until = excluded.fresh_until`,
      [
        rows.map((row) => row.addressKey),
        rows.map((row) => row.userId),
        rows.map((row) => resultJson(row.result)),
        rows.map((row) => row.verifiedAt),
        rows.map((row) => row.freshUntil),
      ],
    );
  }

  prune(now: number, maxEntries: number): Promise<number> {
    return this.db.transaction(async (sql) => {
      const stale = await sql.run('DELETE FROM result_cache WHERE fresh_until <= $1', [now]);
      const beyond = (await sql.row<{ entries: number }>('SELECT count(*)::integer AS entries FROM result_cache'))!.entries - maxEntries;
      if (beyond <= 0) return stale;
      return (
        stale +
        (await sql.run(
          `DELETE FROM result_cache WHERE (address_key, user_id) IN
             (SELECT address_key, user_id FROM result_cache ORDER BY fresh_until LIMIT $1)`,
          [beyond],
        ))
      );
    });
  }
}
