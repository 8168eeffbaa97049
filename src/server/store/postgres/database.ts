import { createHash } from 'node:crypto';
import pg from 'pg';
import { StoreError, StoreFault } from '../model.js';

/** Connections one process keeps to the database at most: enough for a node's concurrent requests and runner. */
const POOL_SIZE = 10;
const INT8_OID = 20;

/**
 * BIGINT columns (ids, balances, counts) arrive as numbers, not strings: every value the service
 * keeps fits a double exactly. Set on our pools only, never on pg's global parsers.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format: 'text' | 'binary' = 'text') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * TCP keepalive after this much silence on a connection: well under the idle time after which NAT
 * gateways and load balancers drop a connection without a word (minutes), which would otherwise
 * end a holder's idle session on the server's side only (docs/architecture.md "Liveness beside leases").
 */
const KEEPALIVE_AFTER_MS = 10_000;

/**
 * What a pool of ours is made with; the change listener's and the holders' own connections use it
 * too. Every call has `timeoutMs`: to get a connection, for a statement on the server, and for its
 * answer to arrive (a server that stopped answering mid-statement). Every connection sends TCP
 * keepalives.
 */
export function clientConfig(databaseUrl: string, timeoutMs: number): pg.ClientConfig {
  return {
    connectionString: databaseUrl,
    types,
    application_name: 'mailverify',
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 1_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_AFTER_MS,
  };
}

export function createPool(databaseUrl: string, timeoutMs: number): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(databaseUrl, timeoutMs), max: POOL_SIZE });
  // An idle connection the server dropped (a restart, a failover) is discarded by the pool and the
  // next query opens a new one; without a listener the error would end the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * How a transaction's statements are planned. `cached`, PostgreSQL's way with named statements:
 * after five calls a statement keeps one plan for every value, until the next ANALYZE. `each call`:
 * a plan for the values of each call, for the work queue's statements on job_items, which grows
 * from a few rows to hundreds of thousands within seconds of a large job's arrival: a plan kept
 * from when it was small walked the whole new job for each claim (docs/architecture.md "Work
 * distribution"). Reads keep cached plans: planned for a new job's values against statistics from
 * before it, a page of results sorted the whole job for each page.
 */
export type Planning = 'cached' | 'each call';

/** Each distinct statement gets a name, so every connection parses and plans it once (see Planning). */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `mv_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** The database's clock in epoch milliseconds: the lease clock every node shares. */
const CLOCK_QUERY = 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms';

/** Statements on the pool, or on the one connection of a transaction. */
export class Statements {
  constructor(private readonly target: pg.Pool | pg.PoolClient) {}

  async rows<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await faultsAsConditions(this.target.query<Row>({ name: statementName(text), text, values }))).rows;
  }

  async row<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row | undefined> {
    return (await this.rows<Row>(text, values))[0];
  }

  /** The number of rows the statement wrote. */
  async run(text: string, values: unknown[] = []): Promise<number> {
    return (await faultsAsConditions(this.target.query({ name: statementName(text), text, values }))).rowCount ?? 0;
  }
}

/** What every part of the store shares: the pool and the clock. */
export class Database {
  readonly sql: Statements;

  constructor(
    readonly pool: pg.Pool,
    readonly now: () => Date,
    /** A test's clock: leases follow it rather than the database's. */
    private readonly clockGiven = false,
  ) {
    this.sql = new Statements(pool);
  }

  /**
   * Now in epoch milliseconds for lease times: the database's clock, the one every node shares
   * (a node whose own clock runs ahead must not take live leases), unless a test gave a clock.
   */
  async leaseClock(sql: Statements): Promise<number> {
    if (this.clockGiven) return this.now().getTime();
    return (await sql.row<{ ms: number }>(CLOCK_QUERY))!.ms;
  }

  timestamp(): string {
    return this.now().toISOString();
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws. Read committed unless told otherwise; the parts lock what they must (the
   * user's row before moving credits) so that concurrent nodes serialise where it matters.
   */
  transaction<T>(
    work: (sql: Statements) => Promise<T>,
    isolation: 'read committed' | 'repeatable read' = 'read committed',
    planning: Planning = 'cached',
  ): Promise<T> {
    return this.run(work, isolation, planning, false);
  }

  /**
   * A transaction as `transaction` runs it, given the lease clock at its start, read in the round
   * trip that begins it: the work queue's and the host slots' transactions all start from now, and
   * a round trip is most of a short statement's cost to both sides.
   */
  clockedTransaction<T>(work: (sql: Statements, now: number) => Promise<T>, planning: Planning = 'cached'): Promise<T> {
    return this.run(work, 'read committed', planning, true);
  }

  private async run<T>(
    work: (sql: Statements, now: number) => Promise<T>,
    isolation: 'read committed' | 'repeatable read',
    planning: Planning,
    clocked: boolean,
  ): Promise<T> {
    const client = await faultsAsConditions(this.pool.connect());
    // The pool listens for a lost connection only while a client is idle: checked out, a socket that
    // dies (the database restarting) is an 'error' event that, unheard, would end the process. The
    // statement in flight fails with the same error, which is what this transaction reports.
    const lost = () => undefined;
    client.on('error', lost);
    const giveBack = (broken?: Error) => {
      client.removeListener('error', lost);
      client.release(broken);
    };
    let result: T;
    try {
      const readsClock = clocked && !this.clockGiven;
      const began = await client.query(
        `BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}${planning === 'each call' ? '; SET LOCAL plan_cache_mode = force_custom_plan' : ''}${readsClock ? `; ${CLOCK_QUERY}` : ''}`,
      );
      // Several statements in one query answer with a result each; the clock's is the last.
      const now = readsClock ? (began as unknown as pg.QueryResult<{ ms: number }>[]).at(-1)!.rows[0]!.ms : this.now().getTime();
      result = await work(new Statements(client), now);
      await client.query('COMMIT');
    } catch (error) {
      // A connection whose ROLLBACK fails is broken: it is destroyed rather than given back to the pool.
      await client.query('ROLLBACK').then(
        () => giveBack(),
        (broken: Error) => giveBack(broken),
      );
      throw asStoreFault(error);
    }
    giveBack();
    return result;
  }
}

/**
 * Errors that mean the database cannot answer now, not that a statement is wrong: connection
 * exceptions (08), operator intervention (57P: a shutdown, a restart), insufficient resources (53),
 * a statement cancelled by its time limit (57014), and the driver's own connection failures.
 */
const UNAVAILABLE_STATES = /^(08|57P|53)|^57014$/;
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOENT']);
const UNAVAILABLE_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|query read timeout|connection error|not queryable|Connection is closed/i;

export function asStoreFault(error: unknown): unknown {
  if (error instanceof StoreFault || error instanceof StoreError) return error;
  const state = sqlState(error);
  const code = (error as { code?: unknown } | null)?.code;
  const unavailable =
    state !== undefined
      ? UNAVAILABLE_STATES.test(state)
      : (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) || (error instanceof Error && UNAVAILABLE_MESSAGES.test(error.message));
  return unavailable ? new StoreFault(error) : error;
}

async function faultsAsConditions<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asStoreFault(error);
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
