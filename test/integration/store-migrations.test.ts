import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/server/store/sqlite/migrate.js';
import { openPostgresStore } from '../../src/server/store/open/postgres-store.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../../src/server/store/open/open-store.js';
import { MIGRATIONS as PG_MIGRATIONS, migrate as migratePostgres } from '../../src/server/store/postgres/migrate.js';
import { DATABASE_FILE, openSqliteStore } from '../../src/server/store/open/sqlite-store.js';
import type { Store } from '../../src/server/store/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

// Each store's own way of being opened: files and pragmas for SQLite, schema_migrations on PostgreSQL.

/**
 * Two users' jobs written before jobs counted their leased items: the older job's user has an item
 * under a live lease (expiring at @expires), so the newer job's user, with none, is claimed for first.
 */
const LEASED_BEFORE_COUNTING = `
  INSERT INTO users (id, email, balance, rate_limit, rate_window_seconds, created_at) VALUES
    (1, 'busy@example.test', 0, 20, 1, '2026-01-01T00:00:00.000Z'), (2, 'idle@example.test', 0, 20, 1, '2026-01-01T00:00:00.000Z');
  INSERT INTO jobs (id, user_id, total, created_at) VALUES
    ('older-job', 1, 2, '2026-01-01T00:00:00.000Z'), ('newer-job', 2, 1, '2026-01-02T00:00:00.000Z');
  INSERT INTO job_items (job_id, position, email, domain, lease_token, lease_expires_at) VALUES
    ('older-job', 0, 'a@a.test', 'a.test', 'old-lease', @expires), ('older-job', 1, 'b@b.test', 'b.test', NULL, NULL),
    ('newer-job', 0, 'c@c.test', 'c.test', NULL, NULL);`;

/** Two users of a file at schema version 18, and a row of every table that points at a user. */
const USERS_BEFORE_AUTOINCREMENT = `
  INSERT INTO users (id, email, password_hash, balance, rate_limit, rate_window_seconds, created_at) VALUES
    (7, 'kept@example.test', NULL, 42, 20, 1, '2026-01-01T00:00:00.000Z'), (8, 'newest@example.test', NULL, 0, 20, 1, '2026-01-02T00:00:00.000Z');
  INSERT INTO api_tokens (id, user_id, name, token_hash, created_at) VALUES ('kept-token', 7, 'ci', 'kept-token-hash', '2026-01-01T00:00:00.000Z');
  INSERT INTO ledger (user_id, delta, balance_after, reason, created_at) VALUES (7, 42, 42, 'grant', '2026-01-01T00:00:00.000Z');
  INSERT INTO jobs (id, user_id, total, created_at) VALUES ('kept-job', 7, 1, '2026-01-01T00:00:00.000Z');
  INSERT INTO job_items (job_id, position, email, domain) VALUES ('kept-job', 0, 'a@kept.test', 'kept.test');
  INSERT INTO idempotency (user_id, route, key, request_hash, status_code, body, created_at) VALUES (7, 'verify', 'k', 'h', 200, '{}', '2026-01-01T00:00:00.000Z');
  INSERT INTO rate_windows (user_id, window_start, count) VALUES (7, 1, 1);
  INSERT INTO sessions (id_hash, user_id, csrf_secret, created_at, expires_at) VALUES ('kept-session', 7, 'csrf', '2026-01-01T00:00:00.000Z', '2036-01-01T00:00:00.000Z');
  INSERT INTO list_uploads (id, user_id, file_name, content, created_at) VALUES ('kept-upload', 7, 'list.csv', x'00', '2026-01-01T00:00:00.000Z');
  INSERT INTO webhook_endpoints (id, user_id, url, secret, created_at) VALUES ('kept-endpoint', 7, 'https://hooks.example.test/', 'whsec', '2026-01-01T00:00:00.000Z');`;

/** How many rows each table that points at a user holds. */
function rowsPerUser(db: Sqlite.Database): Record<string, number> {
  const tables = ['api_tokens', 'ledger', 'jobs', 'job_items', 'idempotency', 'rate_windows', 'sessions', 'list_uploads', 'webhook_endpoints'];
  return Object.fromEntries(tables.map((table) => [table, (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n]));
}

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

describe('the SQLite store', () => {
  const root = mkdtempSync(join(tmpdir(), 'mailverify-migrations-'));
  let dataDir: string;
  const open = (dir = dataDir) => {
    const store = openSqliteStore(dir);
    opened.push(store);
    return store;
  };
  beforeEach(() => {
    dataDir = mkdtempSync(join(root, 'data-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('creates the directory (0700) and the database file (0600) on first start, in WAL mode', () => {
    const fresh = join(root, 'fresh', 'nested');
    open(fresh);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    expect(statSync(join(fresh, DATABASE_FILE)).mode & 0o777).toBe(0o600);
    const raw = new Sqlite(join(fresh, DATABASE_FILE), { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    raw.close();
  });

  it('brings an existing file forward through new migrations, leaving its rows intact', async () => {
    const user = await open().accounts.createUser({ email: 'old@example.test', passwordHash: null, balance: 3, rateLimit: 20, rateWindowSeconds: 1 });
    const raw = new Sqlite(join(dataDir, DATABASE_FILE));
    const next = [...MIGRATIONS, { version: MIGRATIONS.length + 1, name: 'user_notes', sql: 'ALTER TABLE users ADD COLUMN note TEXT' }];
    expect(migrate(raw, next)).toBe(MIGRATIONS.length + 1);
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    expect(raw.prepare('SELECT email, balance, note FROM users WHERE id = ?').get(user.id)).toEqual({
      email: 'old@example.test',
      balance: 3,
      note: null,
    });
    // Applying the same list again is a no-op, not a second ALTER TABLE.
    expect(() => migrate(raw, next)).not.toThrow();
    raw.close();
  });

  it('gives the items of schema version 2 their domain, so they are claimed by domain', async () => {
    const raw = new Sqlite(join(dataDir, DATABASE_FILE));
    migrate(raw, MIGRATIONS.slice(0, 2));
    raw.exec(`INSERT INTO users (id, email, balance, rate_limit, rate_window_seconds, created_at) VALUES (1, 'old@example.test', 0, 20, 1, '2026-01-01T00:00:00.000Z');
              INSERT INTO jobs (id, user_id, total, created_at) VALUES ('old-job', 1, 3, '2026-01-01T00:00:00.000Z');
              INSERT INTO job_items (job_id, position, email) VALUES ('old-job', 0, 'a@One.test'), ('old-job', 1, 'b@two.test'), ('old-job', 2, 'c@one.test');`);
    raw.close();
    const store = open();
    const claim = () => store.work.claimWork({ maxItems: 100, leaseMs: 60_000 });
    expect(await claim()).toMatchObject({ jobId: 'old-job', domain: 'one.test', items: [{ position: 0 }, { position: 2 }] });
    expect(await claim()).toMatchObject({ domain: 'two.test', items: [{ position: 1 }] });
  });

  it("counts the live leases of a file of schema version 6 as its jobs' items in flight", async () => {
    const raw = new Sqlite(join(dataDir, DATABASE_FILE));
    migrate(raw, MIGRATIONS.slice(0, 6));
    raw.exec(LEASED_BEFORE_COUNTING.replace('@expires', String(Date.now() + 600_000)));
    raw.close();
    expect(await open().work.claimWork({ maxItems: 100, leaseMs: 60_000 })).toMatchObject({ jobId: 'newer-job' });
  });

  it('gives a file of schema version 18 user ids never given twice, keeping every row and what points at each user', async () => {
    const raw = new Sqlite(join(dataDir, DATABASE_FILE));
    migrate(raw, MIGRATIONS.slice(0, 18));
    raw.exec(USERS_BEFORE_AUTOINCREMENT);
    // Before 020, SQLite gave the newest user's id to the next user once it was deleted.
    raw.exec(
      "DELETE FROM users WHERE id = 8; INSERT INTO users (email, rate_limit, rate_window_seconds, created_at) VALUES ('reused@example.test', 20, 1, 'now')",
    );
    expect(raw.prepare("SELECT id FROM users WHERE email = 'reused@example.test'").get()).toEqual({ id: 8 });
    raw.exec(
      "DELETE FROM users WHERE id = 8; INSERT INTO users (id, email, balance, rate_limit, rate_window_seconds, created_at) VALUES (8, 'newest@example.test', 0, 20, 1, 'then')",
    );
    const counts = rowsPerUser(raw);
    raw.close();

    const store = open();
    const migrated = new Sqlite(join(dataDir, DATABASE_FILE));
    expect(migrated.pragma('foreign_key_check')).toEqual([]);
    expect(rowsPerUser(migrated)).toEqual(counts);
    expect(migrated.prepare('SELECT id, email, balance FROM users ORDER BY id').all()).toEqual([
      { id: 7, email: 'kept@example.test', balance: 42 },
      { id: 8, email: 'newest@example.test', balance: 0 },
    ]);
    migrated.close();
    const [kept, newest] = await store.accounts.listUsers();
    expect(kept!.sessionEpoch).not.toBe(newest!.sessionEpoch);
    expect(await store.accounts.deleteUser(8)).toBe(true);
    expect((await store.accounts.createUser({ email: 'next@example.test', passwordHash: null, balance: 0, rateLimit: 20, rateWindowSeconds: 1 })).id).toBe(9);
    // The foreign keys point at the new table: deleting a user still takes what is theirs with them.
    expect(await store.accounts.deleteUser(7)).toBe(true);
    const after = new Sqlite(join(dataDir, DATABASE_FILE), { readonly: true });
    expect(rowsPerUser(after)).toEqual(Object.fromEntries(Object.keys(counts).map((table) => [table, 0])));
    after.close();
  });

  it('refuses a file written by a newer schema instead of corrupting it', () => {
    const raw = new Sqlite(join(dataDir, DATABASE_FILE));
    raw.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    raw.close();
    expect(() => open()).toThrow(/newer than this mailverify knows/);
  });
});

describe('the PostgreSQL store', () => {
  let database: TestDatabase;
  const open = async () => {
    const store = await openPostgresStore(database.url, { timeoutMs: DEFAULT_STORE_TIMEOUT_MS });
    opened.push(store);
    return store;
  };
  async function versions(): Promise<number[]> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((row) => row.version);
    } finally {
      await client.end();
    }
  }
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await database.drop();
  });

  it('migrates an empty database once, even when several nodes start on it at the same moment', async () => {
    await Promise.all([open(), open(), open()]);
    expect(await versions()).toEqual(PG_MIGRATIONS.map((migration) => migration.version));
  });

  it('brings a database forward through new migrations, leaving its rows intact', async () => {
    const user = await (await open()).accounts.createUser({ email: 'old@example.test', passwordHash: null, balance: 3, rateLimit: 20, rateWindowSeconds: 1 });
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      const next = [...PG_MIGRATIONS, { version: PG_MIGRATIONS.length + 1, name: 'user_notes', sql: 'ALTER TABLE users ADD COLUMN note TEXT' }];
      expect(await migratePostgres(pool, next)).toBe(PG_MIGRATIONS.length + 1);
      expect(await migratePostgres(pool, next)).toBe(PG_MIGRATIONS.length + 1);
      expect((await pool.query('SELECT email, balance::integer AS balance, note FROM users WHERE id = $1', [user.id])).rows).toEqual([
        { email: 'old@example.test', balance: 3, note: null },
      ]);
    } finally {
      await pool.end();
    }
    expect(await versions()).toEqual([...PG_MIGRATIONS.map((migration) => migration.version), PG_MIGRATIONS.length + 1]);
  });

  it("counts the live leases of a database of schema version 6 as its jobs' items in flight", async () => {
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      await migratePostgres(pool, PG_MIGRATIONS.slice(0, 6));
      await pool.query(LEASED_BEFORE_COUNTING.replace('@expires', String(Date.now() + 600_000)));
    } finally {
      await pool.end();
    }
    expect(await (await open()).work.claimWork({ maxItems: 100, leaseMs: 60_000 })).toMatchObject({ jobId: 'newer-job' });
  });

  it('refuses a database a newer mailverify has migrated, instead of corrupting it', async () => {
    await (await open()).close();
    opened.splice(0);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      PG_MIGRATIONS.length + 5,
      'from_later',
      new Date().toISOString(),
    ]);
    await client.end();
    await expect(open()).rejects.toThrow(/newer than this mailverify knows/);
  });
});
