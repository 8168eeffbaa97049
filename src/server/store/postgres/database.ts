import { createHash } from 'node:crypto';
import pg from 'pg';
import { StoreError } from '../model.js';

/** Connections one process keeps to the database at most: enough for a node's concurrent requests and runner. */
const POOL_SIZE = 10;
/** How long to wait for a connection before a request fails, rather than hang on an unreachable database. */
const CONNECT_TIMEOUT_MS = 10_000;
const INT8_OID = 20;

/**
 * BIGINT columns (ids, balances, counts) arrive as numbers, not strings: every value the service
 * keeps fits a double exactly. Set on our pools only, never on pg's global parsers.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format: 'text' | 'binary' = 'text') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** What a pool of ours is made with; the change listener's own connection uses it too. */
export function clientConfig(databaseUrl: string): pg.ClientConfig {
  return { connectionString: databaseUrl, types, application_name: 'mailverify', connectionTimeoutMillis: CONNECT_TIMEOUT_MS };
}

export function createPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(databaseUrl), max: POOL_SIZE });
  // An idle connection the server dropped (a restart, a failover) is discarded by the pool and the
  // next query opens a new one; without a listener the error would end the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Each distinct statement gets a name, so every connection parses and plans it once. */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `mv_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Statements on the pool, or on the one connection of a transaction. */
export class Statements {
  constructor(private readonly target: pg.Pool | pg.PoolClient) {}

  async rows<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.target.query<Row>({ name: statementName(text), text, values })).rows;
  }

  async row<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row | undefined> {
    return (await this.rows<Row>(text, values))[0];
  }

  /** The number of rows the statement wrote. */
  async run(text: string, values: unknown[] = []): Promise<number> {
    return (await this.target.query({ name: statementName(text), text, values })).rowCount ?? 0;
  }
}

/** What every part of the store shares: the pool and the clock. */
export class Database {
  readonly sql: Statements;

  constructor(
    readonly pool: pg.Pool,
    readonly now: () => Date,
  ) {
    this.sql = new Statements(pool);
  }

  timestamp(): string {
    return this.now().toISOString();
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws. Read committed unless told otherwise; the parts lock what they must (the
   * user's row before moving credits) so that concurrent nodes serialise where it matters.
   */
  async transaction<T>(work: (sql: Statements) => Promise<T>, isolation: 'read committed' | 'repeatable read' = 'read committed'): Promise<T> {
    const client = await this.pool.connect();
    let result: T;
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}`);
      result = await work(new Statements(client));
      await client.query('COMMIT');
    } catch (error) {
      // A connection whose ROLLBACK fails is broken: it is destroyed rather than given back to the pool.
      await client.query('ROLLBACK').then(
        () => client.release(),
        (broken: Error) => client.release(broken),
      );
      throw error;
    }
    client.release();
    return result;
  }
}

/** PostgreSQL's SQLSTATE of a failed statement, when it is one. */
function sqlState(error: unknown): string | undefined {
  return error instanceof pg.DatabaseError ? error.code : undefined;
}

export const isUniqueViolation = (error: unknown) => sqlState(error) === '23505';
export const isForeignKeyViolation = (error: unknown) => sqlState(error) === '23503';

export function noSuchUser(userId: number): StoreError {
  return new StoreError('user_not_found', `no user with id ${userId}`);
}
