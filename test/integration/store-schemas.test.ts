import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, openSqliteStore } from '../../src/server/store/open/sqlite-store.js';
import { migrate } from '../../src/server/store/postgres/migrate.js';
import { createTestDatabase } from '../support/postgres.js';
import { postgresSchema, sqliteSchema, type Schema } from '../support/schemas.js';

// The two dialects' schemas after every migration agree (tables, columns with their type's family
// and nullability, keys, indexes by columns, CHECK counts), but for the differences each dialect
// has by design, listed here with their reasons. A migration written for one dialect only fails.

/** Tables only PostgreSQL needs: liveness from sessions, and the signing secret SQLite keeps in a file of the data dir. */
const POSTGRES_ONLY_TABLES = ['holder_absences', 'signing_secrets'];

/** The same rule written each dialect's way: [table, what, SQLite's, PostgreSQL's, why]. */
const BY_DESIGN: ReadonlyArray<[string, string, unknown, unknown, string]> = [
  ['users', 'indexes', ['unique (email)'], ['unique (<expression>)'], 'SQLite folds case by COLLATE NOCASE, PostgreSQL by an index on lower(email)'],
  ['jobs', 'columns.fresh.family', 'integer', 'boolean', 'SQLite has no boolean type: 0 and 1'],
  ['jobs', 'columns.sandbox.family', 'integer', 'boolean', 'SQLite has no boolean type: 0 and 1'],
  ['api_tokens', 'columns.test.family', 'integer', 'boolean', 'SQLite has no boolean type: 0 and 1'],
  ['job_items', 'checks', 0, 1, "PostgreSQL's result writes rely on 'a result holds no lease'; SQLite's name both conditions"],
];

function pick(schema: Schema, table: string, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], schema[table]);
}

/** Each dialect's own way of a by-design difference replaced by one neutral mark, so the rest compares whole. */
function withoutByDesign(schema: Schema, dialect: 2 | 3): Schema {
  const copy = structuredClone(schema);
  for (const table of POSTGRES_ONLY_TABLES) delete copy[table];
  for (const [table, path, ...ways] of BY_DESIGN) {
    expect(pick(copy, table, path), `${table}.${path} is no longer as BY_DESIGN says; update the list`).toEqual(ways[dialect - 2]);
    const keys = path.split('.');
    const parent = keys.slice(0, -1).reduce<Record<string, unknown>>((value, key) => value[key] as Record<string, unknown>, copy[table] as never);
    parent[keys.at(-1)!] = 'by design';
  }
  return copy;
}

describe('the SQLite and PostgreSQL schemas after all migrations', () => {
  let sqlite: Schema;
  let postgres: Schema;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mailverify-schemas-'));
    try {
      await openSqliteStore(dataDir).close();
      const db = new Sqlite(join(dataDir, DATABASE_FILE), { readonly: true });
      sqlite = sqliteSchema(db);
      db.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const database = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      await migrate(pool);
      const client = await pool.connect();
      postgres = await postgresSchema(client).finally(() => client.release());
    } finally {
      await pool.end();
      await database.drop();
    }
  });

  it('have the same tables (PostgreSQL has its own few, listed)', () => {
    expect(Object.keys(sqlite).sort()).toEqual(
      Object.keys(postgres)
        .filter((table) => !POSTGRES_ONLY_TABLES.includes(table))
        .sort(),
    );
  });

  it('agree table by table on columns, keys, indexes and checks, but for the differences by design', () => {
    const left = withoutByDesign(sqlite, 2);
    const right = withoutByDesign(postgres, 3);
    for (const table of Object.keys(left)) expect({ table, ...right[table] }).toEqual({ table, ...left[table] });
  });
});
