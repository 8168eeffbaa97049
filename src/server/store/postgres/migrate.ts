import type pg from 'pg';
import { fromLegacyVersion, newerThanKnown, readMigrations, SCHEMA_MIGRATIONS_TABLE, type Migration } from '../migration-files.js';

/**
 * The schema: migrations/postgres/, read once. schema_migrations holds a row per migration applied,
 * by number and name. Same tables and columns as the SQLite schema (times are ISO-8601 text in
 * both, so both stores answer alike).
 */
export const MIGRATIONS: readonly Migration[] = readMigrations('postgres');

/**
 * Before the numbered files, schema_migrations counted PostgreSQL's own steps, without names: the
 * version those steps reached (the index) as the files number it. Its step 1 made all that the
 * files make in 001 to 004, so its step 2 onwards come three later. A table without the name
 * column is translated once, when this mailverify first migrates it.
 */
const LEGACY_VERSIONS: readonly number[] = [0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];

const DATABASE = 'the database';

const record = (client: pg.PoolClient, migration: Migration, appliedAt: string) =>
  client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, appliedAt]);

/**
 * The version the database is at, in the files' numbering. Recorded under the old numbering, the
 * rows are rewritten as the files number them, each keeping the time of the old step that made it.
 */
async function currentVersion(client: pg.PoolClient, migrations: readonly Migration[]): Promise<number> {
  await client.query(SCHEMA_MIGRATIONS_TABLE);
  const { rows } = await client.query<{ version: number; applied_at: string }>('SELECT version, applied_at FROM schema_migrations ORDER BY version');
  const named = await client.query(
    "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'name'",
  );
  const version = rows.at(-1)?.version ?? 0;
  const numbered = named.rowCount !== 0;
  const current = numbered ? version : fromLegacyVersion(LEGACY_VERSIONS, version, DATABASE, migrations.length);
  if (current > migrations.length) throw newerThanKnown(DATABASE, current, migrations.length);
  if (!numbered) {
    await client.query('DELETE FROM schema_migrations');
    await client.query('ALTER TABLE schema_migrations ADD COLUMN name TEXT NOT NULL');
    for (const migration of migrations.slice(0, current)) {
      const madeBy = rows.find((row) => LEGACY_VERSIONS[row.version]! >= migration.version)!;
      await record(client, migration, madeBy.applied_at);
    }
  }
  return current;
}

/** Any constant would do: it only keeps two nodes starting at once from migrating together. */
const MIGRATION_LOCK = 0x6d76_6d67;

/**
 * Brings the database to the newest schema in one transaction, under an advisory lock: of nodes
 * starting at once one migrates, the others then find it done. Refuses a database that a newer
 * mailverify has migrated further.
 */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // A migration may rewrite a large table: it is not held to the time limit of ordinary calls.
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const current = await currentVersion(client, migrations);
    for (const migration of migrations.slice(current)) {
      await client.query(migration.sql);
      await record(client, migration, new Date().toISOString());
    }
    await client.query('COMMIT');
    return migrations.length;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
