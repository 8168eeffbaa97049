import { LOGIN_WINDOW_MAX_SECONDS } from '../model.js';
import type { Connection } from './database.js';

/** Fixed-window counters: requests per user and login attempts per address or client IP. */
export class SqliteLimits {
  private readonly sql;

  constructor(connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      reserveRequests: prepare<{ count: number }>(
        `INSERT INTO rate_windows (user_id, window_start, count) VALUES (?, ?, ?)
         ON CONFLICT (user_id, window_start) DO UPDATE SET count = count + excluded.count
         RETURNING count`,
      ),
      pruneWindows: prepare('DELETE FROM rate_windows WHERE user_id = ? AND window_start < ?'),
      addToLoginCount: prepare<{ count: number }>(
        `INSERT INTO login_windows (window_start, key, count) VALUES (?, ?, ?)
         ON CONFLICT (window_start, key) DO UPDATE SET count = count + excluded.count
         RETURNING count`,
      ),
      loginCount: prepare<{ count: number }>('SELECT count FROM login_windows WHERE window_start = ? AND key = ?'),
      pruneLoginWindows: prepare('DELETE FROM login_windows WHERE window_start < ?'),
    };
  }

  reserveRequests(userId: number, windowStart: number, count: number): number {
    // One upsert is atomic on its own; no explicit transaction, because BEGIN/COMMIT would triple its cost.
    const total = this.sql.reserveRequests.get(userId, windowStart, count)!.count;
    // The row is new (a user's first reservation in a window): their older windows stop mattering.
    if (total === count) this.sql.pruneWindows.run(userId, windowStart);
    return total;
  }

  addToLoginCount(key: string, windowStart: number, delta: number): number {
    // Reading a counter writes nothing: no row for every address someone tried.
    if (delta === 0) return this.sql.loginCount.get(windowStart, key)?.count ?? 0;
    const { count } = this.sql.addToLoginCount.get(windowStart, key, delta)!;
    // The first attempt under a key in a window: a moment to drop every window too old for any counter.
    if (count === 1 && delta === 1) this.sql.pruneLoginWindows.run(windowStart - LOGIN_WINDOW_MAX_SECONDS);
    return count;
  }
}
