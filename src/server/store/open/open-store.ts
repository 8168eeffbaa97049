import { StoreUnavailableError, type Store } from '../store.js';

/*
 * The store's door for the CLI (docs/architecture.md "Layers"): what a command needs to name a
 * store, find its data dir and read its errors comes from here, beside openStore. All of it is
 * light: each store implementation is still imported only when opened.
 */
export { StoreError, StoreUnavailableError } from '../store.js';
export type { Holder, JobDetails, JobListPlace, JobProgress, JobSummary, Store, User } from '../store.js';
export { DATABASE_FILE, dataDirDefault, DataDirError, prepareDataDir, resolveDataDir, usableDataDir } from '../data-dir.js';

export interface StoreLocation {
  /** The data directory: the SQLite file lives here, unless a database URL is given. */
  dataDir: string;
  /** A PostgreSQL URL (postgres://…): the store several nodes share. */
  databaseUrl?: string;
  /** The time limit of every store call (`--store-timeout`); DEFAULT_STORE_TIMEOUT_MS unless given. */
  timeoutMs?: number;
}

export interface OpenStoreOptions extends StoreLocation {
  /** The clock, for tests of time-bound records (idempotency keys, leases); without it leases follow the database's clock. */
  now?: () => Date;
}

/**
 * How long one store call may take before it fails as a StoreFault (a 503 for the API, a pause
 * for a runner): a statement's time limit on PostgreSQL (and the wait for a connection), the wait
 * for another process's write lock on SQLite. Under 5 s, so that a request never hangs on a
 * database that is away.
 */
export const DEFAULT_STORE_TIMEOUT_MS = 4_000;

/**
 * The one way `serve`, `worker` and `admin` open their store: PostgreSQL when given a database
 * URL, else SQLite in the data dir. Each implementation is imported only when chosen, so a node on
 * PostgreSQL never loads the SQLite driver and the embedded default never loads `pg`.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const { dataDir, databaseUrl, now } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  try {
    if (databaseUrl !== undefined) {
      const { openPostgresStore } = await import('./postgres-store.js');
      return await openPostgresStore(databaseUrl, { now, timeoutMs });
    }
    const { openSqliteStore } = await import('./sqlite-store.js');
    return openSqliteStore(dataDir, { now, busyTimeoutMs: timeoutMs });
  } catch (error) {
    throw new StoreUnavailableError(describeStore(options), error);
  }
}

/** The store as an operator would name it in a message: never with the database password. */
function describeStore({ dataDir, databaseUrl }: StoreLocation): string {
  if (databaseUrl === undefined) return `the data dir ${dataDir}`;
  const url = new URL(databaseUrl);
  return `the database ${url.host}${url.pathname}`;
}
