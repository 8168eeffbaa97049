import type { Database } from 'better-sqlite3';
import { fromLegacyVersion, newerThanKnown, readMigrations, SCHEMA_MIGRATIONS_TABLE, type Migration } from '../migration-files.js';

/** The schema: migrations/sqlite/, read once. `PRAGMA user_version` holds the version a file is at. */
export const MIGRATIONS: readonly Migration[] = readMigrations('sqlite');

/**
 * Before the numbered files, `user_version` counted SQLite's own steps: the version those steps
 * reached (the index) as the files number it. Its step 11 onwards come one later, past 011, which
 * SQLite does not need. A file in the files' numbering has a schema_migrations table; one without
 * it is translated once, when this mailverify first opens it.
 */
const LEGACY_VERSIONS: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17];

const DATA_FILE = 'the data file';

/** The version the file is at, in the files' numbering: a file from before them is translated, and recorded so from now on. */
function currentVersion(db: Database, migrations: readonly Migration[]): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  const numbered = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
  const current = numbered ? version : fromLegacyVersion(LEGACY_VERSIONS, version, DATA_FILE, migrations.length);
  if (current > migrations.length) throw newerThanKnown(DATA_FILE, current, migrations.length);
  if (!numbered) {
    db.exec(SCHEMA_MIGRATIONS_TABLE);
    for (const migration of migrations.slice(0, current)) record(db, migration);
  }
  return current;
}

function record(db: Database, migration: Migration): void {
  db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
  db.pragma(`user_version = ${migration.version}`);
}

/** Refuses to commit a schema change that left a row pointing at nothing (the transaction rolls back). */
function checkForeignKeys(db: Database): void {
  const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
  if (broken.length > 0) {
    const { table, parent } = broken[0]!;
    throw new Error(`migrating ${DATA_FILE} left ${broken.length} row(s) pointing at nothing (first: ${table} → ${parent}); nothing was changed`);
  }
}

/**
 * Brings the file to the newest schema. Runs under an immediate (write) transaction, so when
 * `serve` and `admin` open a fresh file at the same moment one migrates and the other then sees
 * the new version and does nothing.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number {
  // Up to date (every open but the first): no need to wait for the write lock a running server may hold.
  // No file from before the numbered files is at a version this high.
  if (db.pragma('user_version', { simple: true }) === migrations.length) return migrations.length;
  const apply = db.transaction(() => {
    const current = currentVersion(db, migrations);
    for (const migration of migrations.slice(current)) {
      db.exec(migration.sql);
      record(db, migration);
    }
    checkForeignKeys(db);
    return migrations.length;
  });
  // Foreign keys are off while the files run, as SQLite's ALTER TABLE documentation ("Making Other
  // Kinds Of Table Schema Changes") asks of a table made again: dropping the old one would otherwise
  // delete, by ON DELETE CASCADE, every row that points at it. The pragma only takes effect outside
  // a transaction; the rows are checked at the end instead.
  const enforced = db.pragma('foreign_keys', { simple: true }) === 1;
  db.pragma('foreign_keys = OFF');
  try {
    return apply.immediate();
  } finally {
    if (enforced) db.pragma('foreign_keys = ON');
  }
}
