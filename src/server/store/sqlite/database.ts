import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { DATABASE_FILE } from '../data-dir.js';
import { migrate } from './migrate.js';

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
  // Deleted rows are overwritten with zeros rather than left in free pages (docs/operating.md "Deleting data").
  db.pragma('secure_delete = ON');
  migrate(db);
  return db;
}

/** What every part of the store shares: the one connection and the clock. */
export class Connection {
  /** Store.onWorkDeleted's listeners: told by this process's own deletions (nothing tells one process of another's). */
  private readonly deletionListeners: (() => void)[] = [];

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

  /**
   * Called after a deletion commits: the write-ahead log still holds the pages as they were before
   * it, so they are copied into the database (zeroed there by secure_delete) and the log cut to
   * nothing. A reader of another process holding an older snapshot makes it wait (busy_timeout);
   * what it could not cut goes at the next deletion or checkpoint (docs/operating.md "Deleting data").
   */
  forgetDeleted(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  onWorkDeleted(listener: () => void): void {
    this.deletionListeners.push(listener);
  }

  /** Jobs with work were deleted (a job, an account): runners stop asking about their addresses at once. */
  workDeleted(): void {
    for (const listener of this.deletionListeners) listener();
  }
}
