import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { openStore, type StoreLocation } from '../../src/server/store/open/open-store.js';
import { DATABASE_FILE } from '../../src/server/store/open/sqlite-store.js';
import type { Store } from '../../src/server/store/store.js';
import { inject } from 'vitest';
import { missing } from './machine.js';
import { createTestDatabase } from './postgres.js';
import { testTempDir } from './temp-dirs.js';

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
    const dataDir = testTempDir('store');
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
          direct((db) =>
            db.exec(`CREATE TRIGGER fail_item BEFORE INSERT ON job_items WHEN NEW.email = '${email}'
                                  BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`),
          );
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
    const dataDir = testTempDir('store');
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

/** Both, unless there is no PostgreSQL here at all (then its tests are skipped, saying so once per file). */
export const STORE_KINDS: StoreKind[] = missing(
  'the PostgreSQL store tests',
  'PostgreSQL',
  inject('postgresServer') === '' ? 'no server answers on 127.0.0.1:5432 and no server programs are installed' : undefined,
)
  ? [sqlite]
  : [sqlite, postgres];

const STORE_MODULE = new URL('../../dist/server/store/open/open-store.js', import.meta.url).href;

/** A child process holding a store open, charging when told to. */
export interface Charger {
  /** Resolves once its store is open and it waits for `go`. */
  ready: Promise<void>;
  /** Starts its fifty charges; resolves with what was granted and refused. */
  go(): Promise<{ granted: number; refused: number }>;
}

/**
 * Fifty charges of 1 to 3 credits on `userId` from a process of its own (the built store), as a
 * service instance on another machine would make them. It opens the store first and says so, then
 * waits for `go`, so that a test starts every charger at one moment whatever each took to start.
 */
export function startCharger(location: StoreLocation, userId: number, worker: number): Charger {
  const script = `
    const { openStore } = await import(${JSON.stringify(STORE_MODULE)});
    const store = await openStore(JSON.parse(process.argv[1]));
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    let granted = 0, refused = 0;
    for (let index = 0; index < 50; index++) {
      // A pause between charges, so that the processes' charges interleave.
      await new Promise((resolve) => setTimeout(resolve, 2));
      const amount = 1 + ((index + ${worker}) % 3);
      const outcome = await store.accounts.charge(${userId}, amount, 'verify');
      if (outcome.ok) granted += amount; else refused += 1;
    }
    await store.close();
    process.stdout.write(JSON.stringify({ granted, refused }) + '\\n');
    process.exit(0);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(location)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const lines = new Promise<string[]>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.split('\n').length > 2) resolve(out.trim().split('\n'));
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`a charger exited ${code}`))));
  });
  const ready = new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (out.startsWith('ready\n')) {
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => reject(new Error(`a charger exited ${code} before it was ready`)));
  });
  return {
    ready,
    async go() {
      child.stdin.end('go\n');
      return JSON.parse((await lines).at(-1)!) as { granted: number; refused: number };
    },
  };
}
