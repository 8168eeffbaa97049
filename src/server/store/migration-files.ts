import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One step of a dialect's schema: the file `NNN_name.sql` brings a database from version NNN - 1 to NNN. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The shipped `migrations/` folder (the package's, beside `dist/`; the checkout's, beside `src/`). */
const MIGRATIONS_DIR = new URL('../../../migrations/', import.meta.url);

const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/**
 * A dialect's migrations in order. Both dialects have the same files, by number and name, so that
 * a version means the same point of the schema's history on either; a step one dialect does not
 * need is a file of comments there. Files are only ever added: a released one is never edited.
 */
export function readMigrations(dialect: 'sqlite' | 'postgres'): Migration[] {
  const dir = new URL(`${dialect}/`, MIGRATIONS_DIR);
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort();
  return files.map((file, index) => {
    const match = FILE_NAME.exec(file);
    if (!match || Number(match[1]) !== index + 1) {
      throw new Error(`${fileURLToPath(dir)}${file}: migrations are named NNN_name.sql and numbered from 001 without gaps`);
    }
    return { version: index + 1, name: match[2]!, sql: readFileSync(new URL(file, dir), 'utf8') };
  });
}

/** A database this mailverify must not touch: a newer one has migrated it further. */
export function newerThanKnown(database: string, version: number, latest: number): Error {
  return new Error(`${database} has schema version ${version}, newer than this mailverify knows (${latest}); upgrade mailverify`);
}

/**
 * The version of a database that recorded `old` under its dialect's own numbering, from before the
 * numbered files (`legacy[old]`, the dialect's translation table): read once, the first time this
 * mailverify opens it. That numbering ended where the table ends, so a version past it is newer.
 */
export function fromLegacyVersion(legacy: readonly number[], old: number, database: string, latest: number): number {
  const version = legacy[old];
  if (version === undefined) throw newerThanKnown(database, old, latest);
  return version;
}

/** Where both dialects record each migration applied, by the file's number and name. */
export const SCHEMA_MIGRATIONS_TABLE =
  'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)';
