import { LOGIN_WINDOW_MAX_SECONDS } from '../model.js';
import type { Database } from './database.js';

/** Fixed-window counters: requests per user and login attempts per address or client IP. */
export class PostgresLimits {
  constructor(private readonly db: Database) {}

  async reserveRequests(userId: number, windowStart: number, count: number): Promise<number> {
    // One upsert is atomic on its own (concurrent ones on a row queue for it): no transaction needed.
    const { count: total } = (await this.db.sql.row<{ count: number }>(
      `INSERT INTO rate_windows (user_id, window_start, count) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, window_start) DO UPDATE SET count = rate_windows.count + excluded.count
       RETURNING count`,
      [userId, windowStart, count],
    ))!;
    // The row is new (a user's first reservation in a window): their older windows stop mattering.
    if (total === count) await this.db.sql.run('DELETE FROM rate_windows WHERE user_id = $1 AND window_start < $2', [userId, windowStart]);
    return total;
  }

  async addToLoginCount(key: string, windowStart: number, delta: number): Promise<number> {
    // Reading a counter writes nothing: no row for every address someone tried.
    if (delta === 0) {
      const row = await this.db.sql.row<{ count: number }>('SELECT count FROM login_windows WHERE window_start = $1 AND key = $2', [windowStart, key]);
      return row?.count ?? 0;
    }
    const { count } = (await this.db.sql.row<{ count: number }>(
      `INSERT INTO login_windows (window_start, key, count) VALUES ($1, $2, $3)
       ON CONFLICT (window_start, key) DO UPDATE SET count = login_windows.count + excluded.count
       RETURNING count`,
      [windowStart, key, delta],
    ))!;
    // The first attempt under a key in a window: a moment to drop every window too old for any counter.
    if (count === 1 && delta === 1) await this.db.sql.run('DELETE FROM login_windows WHERE window_start < $1', [windowStart - LOGIN_WINDOW_MAX_SECONDS]);
    return count;
  }
}
