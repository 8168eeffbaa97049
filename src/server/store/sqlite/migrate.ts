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
    return migrations.length;
  });
  return apply.immediate();
}
