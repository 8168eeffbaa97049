import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/server/store/sqlite/migrate.js';
import { MIGRATIONS as PG_MIGRATIONS } from '../../src/server/store/postgres/migrate.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../../src/server/store/open/open-store.js';
import { openPostgresStore } from '../../src/server/store/open/postgres-store.js';
import { DATABASE_FILE, openSqliteStore } from '../../src/server/store/open/sqlite-store.js';
import type { Store } from '../../src/server/store/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

// Databases made by a mailverify from before the numbered migration files, each dialect having
// counted its own steps: every one must reach the schema a fresh database gets, with nothing run
// twice (that would fail: a table or column made again) and nothing skipped, and keep its rows.

/** A dialect's steps as they were released (test/support/legacy-steps/), step N at index N - 1. */
const legacySteps = (dialect: 'sqlite' | 'postgres') =>
  readFileSync(new URL(`../support/legacy-steps/${dialect}.sql`, import.meta.url), 'utf8')
    .split(/^-- step \d+$/m)
    .slice(1);

/** Rows of every area, as both old schemas at their last step take them. */
const OLD_ROWS = `
  INSERT INTO users (id, email, password_hash, balance, rate_limit, rate_window_seconds, created_at)
    VALUES (7, 'kept@example.test', NULL, 42, 20, 1, '2026-01-01T00:00:00.000Z');
  INSERT INTO ledger (user_id, delta, balance_after, reason, job_id, created_at) VALUES (7, 42, 42, 'grant', NULL, '2026-01-01T00:00:00.000Z');
  INSERT INTO api_tokens (id, user_id, name, token_hash, created_at, scopes) VALUES ('old-token', 7, 'ci', 'old-token-hash', '2026-01-01T00:00:00.000Z', 'verify');
  INSERT INTO jobs (id, user_id, name, total, created_at) VALUES ('old-job', 7, 'list.csv', 1, '2026-01-02T00:00:00.000Z');
  INSERT INTO job_items (job_id, position, email, domain) VALUES ('old-job', 0, 'a@kept.test', 'kept.test');
  INSERT INTO webhook_endpoints (id, user_id, url, secret, created_at) VALUES ('old-endpoint', 7, 'https://hooks.example.test/', 'whsec_old', '2026-01-01T00:00:00.000Z');`;

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** What the old rows read as through the store, once it has migrated them. */
async function expectOldRows(store: Store): Promise<void> {
  expect(await store.accounts.findUserById(7)).toMatchObject({ email: 'kept@example.test', balance: 42 });
  expect(await store.accounts.ledger(7)).toMatchObject([{ delta: 42, reason: 'grant' }]);
  expect(await store.tokens.findApiTokenByHash('old-token-hash')).toMatchObject({ id: 'old-token', scopes: ['verify'], expiresAt: null });
  expect(await store.jobs.getJob(7, 'old-job')).toMatchObject({ name: 'list.csv', total: 1, processed: 0, status: 'processing' });
  expect(await store.webhooks.listEndpoints(7)).toMatchObject([{ id: 'old-endpoint', disabledReason: null }]);
  expect(await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 })).toMatchObject({ jobId: 'old-job', items: [{ position: 0 }] });
}

describe('a SQLite file from before the numbered migrations', () => {
  const root = mkdtempSync(join(tmpdir(), 'mailverify-old-versions-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const steps = legacySteps('sqlite');

  /** A data dir whose file the old code brought to `version`, with `rows` written then. */
  function oldFile(version: number, rows = ''): string {
    const dataDir = mkdtempSync(join(root, 'data-'));
    const raw = new Sqlite(join(dataDir, DATABASE_FILE));
    for (const sql of steps.slice(0, version)) raw.exec(sql);
    raw.exec(rows);
    raw.pragma(`user_version = ${version}`);
    raw.close();
    return dataDir;
  }
  function open(dataDir: string): Store {
    const store = openSqliteStore(dataDir);
    opened.push(store);
    return store;
  }
  /** The schema as SQLite keeps it (whitespace aside: the files are indented as files), and the migrations recorded. */
  function schemaOf(dataDir: string) {
    const raw = new Sqlite(join(dataDir, DATABASE_FILE), { readonly: true });
    try {
      return {
        objects: raw
          .prepare<[], { type: string; name: string; sql: string | null }>(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
          )
          .all()
          .map((object) => ({ ...object, sql: object.sql?.replace(/\s+/g, ' ') })),
        version: raw.pragma('user_version', { simple: true }),
        migrations: raw.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(),
      };
    } finally {
      raw.close();
    }
  }

  it("reaches a fresh file's schema from every old version, running each migration once", () => {
    const fresh = mkdtempSync(join(root, 'fresh-'));
    open(fresh);
    const expected = schemaOf(fresh);
    expect(expected.version).toBe(MIGRATIONS.length);
    for (let version = 0; version <= steps.length; version++) {
      const dataDir = oldFile(version);
      open(dataDir);
      expect({ from: version, ...schemaOf(dataDir) }).toEqual({ from: version, ...expected });
    }
  });

  it('keeps its rows, and the store reads and claims them', async () => {
    await expectOldRows(open(oldFile(steps.length, OLD_ROWS)));
  });
});

describe('a PostgreSQL database from before the numbered migrations', () => {
  const steps = legacySteps('postgres');
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    for (const database of databases.splice(0)) await database.drop();
  });

  async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<Row>(sql)).rows;
    } finally {
      await client.end();
    }
  }
  /** Makes `url`'s database one the old code brought to `version` (recorded as it kept it: versions and times, no names), with `rows` written then. */
  async function makeOld(url: string, version: number, rows = ''): Promise<void> {
    const recorded = Array.from({ length: version }, (_, index) => `(${index + 1}, '2025-01-01T00:00:${String(index + 1).padStart(2, '0')}.000Z')`);
    await query(
      url,
      [
        'DROP SCHEMA public CASCADE',
        'CREATE SCHEMA public',
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
        ...steps.slice(0, version),
        rows,
        ...(version > 0 ? [`INSERT INTO schema_migrations (version, applied_at) VALUES ${recorded.join(', ')}`] : []),
      ].join(';\n'),
    );
  }
  async function newDatabase(): Promise<string> {
    const database = await createTestDatabase();
    databases.push(database);
    return database.url;
  }
  async function open(url: string): Promise<Store> {
    const store = await openPostgresStore(url, { timeoutMs: DEFAULT_STORE_TIMEOUT_MS });
    opened.push(store);
    return store;
  }
  /** The schema as the catalogs describe it (columns by name: a column added later comes last; whitespace aside in functions), and the migrations recorded. */
  async function schemaOf(url: string) {
    return {
      columns: await query(
        url,
        `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity, identity_generation
        FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name`,
      ),
      indexes: await query(url, "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"),
      constraints: await query(
        url,
        "SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conname",
      ),
      triggers: await query(url, 'SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname'),
      functions: await query(
        url,
        "SELECT proname, regexp_replace(prosrc, '\\s+', ' ', 'g') AS prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY proname",
      ),
      migrations: await query(url, 'SELECT version, name FROM schema_migrations ORDER BY version'),
    };
  }

  it("reaches a fresh database's schema from every old version, running each migration once", async () => {
    const url = await newDatabase();
    await (await openPostgresStore(url, { timeoutMs: DEFAULT_STORE_TIMEOUT_MS })).close();
    const expected = await schemaOf(url);
    expect(expected.migrations).toHaveLength(PG_MIGRATIONS.length);
    for (let version = 1; version <= steps.length; version++) {
      await makeOld(url, version);
      await (await openPostgresStore(url, { timeoutMs: DEFAULT_STORE_TIMEOUT_MS })).close();
      expect({ from: version, ...(await schemaOf(url)) }).toEqual({ from: version, ...expected });
    }
  }, 120_000);

  it('keeps its rows, and the times its old steps were applied at', async () => {
    const url = await newDatabase();
    await makeOld(url, steps.length, OLD_ROWS);
    await expectOldRows(await open(url));
    const applied = await query<{ version: number; applied_at: string }>(url, 'SELECT version, applied_at FROM schema_migrations ORDER BY version');
    // Old step 1 made what 001 to 004 make; every later old step N is N + 3; newer files run now.
    expect(applied.slice(0, 5).map((row) => row.applied_at)).toEqual([1, 1, 1, 1, 2].map((step) => `2025-01-01T00:00:0${step}.000Z`));
    const lastOld = steps.length + 3;
    expect(applied[lastOld - 1]).toEqual({ version: lastOld, applied_at: `2025-01-01T00:00:${steps.length}.000Z` });
    expect(applied.slice(lastOld).map((row) => row.version)).toEqual(PG_MIGRATIONS.slice(lastOld).map((migration) => migration.version));
    for (const row of applied.slice(lastOld)) expect(row.applied_at.startsWith('2025-01-01')).toBe(false);
  });
});
