import { resolveDataDir, StoreUnavailableError, type StoreLocation } from '../../server/store/open/open-store.js';
import { dataDirFor } from './data-dir.js';
import { integer } from '../options/engine-flags.js';
import { CliError, ExitCode, UsageError } from '../output/errors.js';
import type { StoreFlags } from '../options/store-flags.js';

const PASSWORD_HINT = 'put the URL in MAILVERIFY_DATABASE_URL, or the password in PGPASSWORD or ~/.pgpass';

/**
 * `--database-url` > `MAILVERIFY_DATABASE_URL` > none (SQLite). A password is accepted from the
 * environment only: a command line is readable by every user of the machine.
 */
export function databaseUrlFrom({ databaseUrl: flag }: StoreFlags, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromFlag = flag !== undefined && flag !== '';
  const raw = fromFlag ? flag : env.MAILVERIFY_DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  const source = fromFlag ? '--database-url' : 'MAILVERIFY_DATABASE_URL';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The text itself is not repeated: it may hold a password.
    throw new UsageError(`${source} is not a URL; expected postgres://user@host:port/database`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`${source} must be a postgres:// URL, got a ${url.protocol}// one`);
  }
  if (fromFlag && url.password !== '')
    throw new UsageError('--database-url must not carry a password: other users of this machine can read a command line', PASSWORD_HINT);
  return raw;
}

/**
 * Where the store is: a PostgreSQL database, or SQLite in a data dir made ready for use (one it
 * cannot use is a usage error, see dataDirFor). With a database the data dir is not needed, so it
 * is neither checked nor created.
 */
export async function storeLocationFrom(flags: StoreFlags, env: NodeJS.ProcessEnv = process.env): Promise<StoreLocation> {
  const databaseUrl = databaseUrlFrom(flags, env);
  const timeoutMs = storeTimeoutFrom(flags, env);
  if (databaseUrl !== undefined) return { dataDir: resolveDataDir(flags.dataDir, env), databaseUrl, timeoutMs };
  return { dataDir: await dataDirFor(flags.dataDir, env), timeoutMs };
}

/** `--store-timeout` > MAILVERIFY_STORE_TIMEOUT > the store's default (store/open/open-store.ts). */
function storeTimeoutFrom({ storeTimeout }: StoreFlags, env: NodeJS.ProcessEnv): number | undefined {
  const raw = storeTimeout ?? (env.MAILVERIFY_STORE_TIMEOUT?.trim() || undefined);
  return raw === undefined ? undefined : integer(100, 600_000)(raw, '--store-timeout');
}

/** A store that cannot be opened is the operator's to fix: one line naming it (never its password) and exit 1. */
export function storeUnavailable(error: unknown): CliError | undefined {
  if (!(error instanceof StoreUnavailableError)) return undefined;
  return new CliError(error.message, ExitCode.failure, 'is the database up and reachable? check --database-url or --data-dir');
}
