import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { openStore, type StoreLocation } from '../../src/server/store/open-store.js';
import { DATABASE_FILE } from '../../src/server/store/sqlite-store.js';
import type { Store } from '../../src/server/store/store.js';
import { createTestDatabase } from './postgres.js';

/**
 * The two stores as tests meet them (`describe.each(STORE_KINDS)`): a fresh, empty store per
 * fixture, any number of connections to it, and a way around the store to the database itself,
 * to look at what it wrote or to make a write fail.
 */
export interface StoreFixture {
  location: StoreLocation;
  /** Another connection (SQLite) or pool (PostgreSQL) to this fixture's store, closed by close(). */
  open(now?: () => Date): Promise<Store>;
  /** Rows of a statement run directly on the database; numbers come back as numbers. */
  query<Row>(sql: string): Promise<Row[]>;
  /** From now on, inserting a job item with this address fails, as a full disk would. */
  failItemInserts(email: string): Promise<void>;
  /** Closes every store open() gave and removes the data dir or database. */
  close(): Promise<void>;
}

export interface StoreKind {
  name: 'SQLite' | 'PostgreSQL';
  create(): Promise<StoreFixture>;
}

function fixture(location: StoreLocation, direct: Pick<StoreFixture, 'query' | 'failItemInserts'>, remove: () => Promise<void>): StoreFixture {
  const opened: Store[] = [];
  return {
    location,
    ...direct,
    async open(now) {
      const store = await openStore({ ...location, now });
      opened.push(store);
      return store;
    },
    async close() {
      for (const store of opened.splice(0)) await store.close();
      await remove();
    },
  };
}

const sqlite: StoreKind = {
  name: 'SQLite',
  async create() {
    const dataDir = mkdtempSync(join(tmpdir(), 'mailverify-store-'));
    const direct = <T>(work: (db: Sqlite.Database) => T): T => {
      const db = new Sqlite(join(dataDir, DATABASE_FILE));
      try {
        return work(db);
      } finally {
        db.close();
      }
    };
    return fixture(
      { dataDir },
      {
        query: async <Row>(sql: string) => direct((db) => db.prepare(sql).all() as Row[]),
        async failItemInserts(email) {
          direct((db) => db.exec(`CREATE TRIGGER fail_item BEFORE INSERT ON job_items WHEN NEW.email = '${email}'
                                  BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`));
        },
      },
      async () => rmSync(dataDir, { recursive: true, force: true }),
    );
  },
};

const postgres: StoreKind = {
  name: 'PostgreSQL',
  async create() {
    const database = await createTestDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'mailverify-store-'));
    const direct = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ connectionString: database.url, types: { getTypeParser: numbersAsNumbers } });
      await client.connect();
      try {
        return await work(client);
      } finally {
        await client.end();
      }
    };
    return fixture(
      { dataDir, databaseUrl: database.url },
      {
        query: async <Row>(sql: string) => direct(async (client) => (await client.query(sql)).rows as Row[]),
        async failItemInserts(email) {
          await direct((client) =>
            client.query(`
              CREATE FUNCTION fail_item() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN RAISE EXCEPTION 'disk trouble'; END $$;
              CREATE TRIGGER fail_item BEFORE INSERT ON job_items FOR EACH ROW WHEN (NEW.email = '${email}') EXECUTE FUNCTION fail_item();`),
          );
        },
      },
      async () => {
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    );
  },
};

/** BIGINT and COUNT(*) as numbers, as the store itself reads them. */
const numbersAsNumbers = ((oid: number, format?: 'text' | 'binary') =>
  oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'];

export const STORE_KINDS: StoreKind[] = [sqlite, postgres];
