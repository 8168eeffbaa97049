import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { migrate } from './migrate.js';

export const DATABASE_FILE = 'mailverify.db';

export interface SqliteStoreOptions {
  /** The clock, for tests of time-bound records (idempotency keys). */
  now?: () => Date;
  /** How long a writer waits for another process's write lock (`admin` beside `serve`). */
  busyTimeoutMs?: number;
}

/** Creates the data directory (0700) and an empty database file (0600: it holds password hashes) when missing. */
function prepareDataDir(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, DATABASE_FILE);
  // SQLite gives the -wal and -shm files the mode of the main file, so setting it here covers all three.
  closeSync(openSync(file, 'a', 0o600));
  return file;
}

/** Opens (creating when missing) the database in `dataDir`, set up and migrated to the current schema. */
export function openDatabase(dataDir: string, options: SqliteStoreOptions): Sqlite.Database {
  const db = new Sqlite(prepareDataDir(dataDir));
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5_000}`);
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/** What every part of the store shares: the one connection and the clock. */
export class Connection {
  constructor(
    readonly db: Sqlite.Database,
    readonly now: () => Date,
  ) {}

  /** Each part prepares its statements once, when it is built. */
  prepare<Row = unknown>(source: string): Sqlite.Statement<unknown[], Row> {
    return this.db.prepare<unknown[], Row>(source);
  }

  timestamp(): string {
    return this.now().toISOString();
  }
}
