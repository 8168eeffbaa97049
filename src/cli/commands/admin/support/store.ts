import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE, openStore, resolveDataDir, StoreError, type Store, type StoreLocation } from '../../../../server/store/open/open-store.js';
import { UsageError } from '../../../output/errors.js';
import { switchFlag, type ParsedCommand } from '../../../options/parsed-command.js';
import { storeFlags, type StoreFlags } from '../../../options/store-flags.js';
import { databaseUrlFrom, storeLocationFrom, storeUnavailable } from '../../../local-service/store-location.js';

/**
 * `mailverify admin …`: the operator's commands, against the store of `serve`: its data dir (on its
 * host; the same SQLite file as a running server, which WAL and a busy timeout make safe) or its
 * PostgreSQL database (from anywhere that reaches it). They print their data on stdout; `token
 * create` prints nothing but the token, for scripts.
 */

/** The store an admin command works on: `admin`'s own flags, shared by every admin command. */
export interface AdminStore extends StoreFlags {
  /** --create: make the database when the data dir holds none. */
  create: boolean;
}

export function adminStore({ flags }: ParsedCommand): AdminStore {
  return { ...storeFlags(flags), create: switchFlag(flags, 'create') };
}

/**
 * The store to open: a database URL as given, else a data dir that holds a database, or (with
 * --create only) one made ready for a new database. Without --create a mistyped --data-dir is an
 * error that says where it looked, rather than an empty database created there that lists no users.
 */
async function storeLocation(flags: AdminStore, env: NodeJS.ProcessEnv): Promise<StoreLocation> {
  if (flags.create || databaseUrlFrom(flags, env) !== undefined) return storeLocationFrom(flags, env);
  const dir = resolveDataDir(flags.dataDir, env);
  const file = join(dir, DATABASE_FILE);
  if (!existsSync(file)) {
    throw new UsageError(
      `no mailverify database in ${dir} (looked for ${file})`,
      'check --data-dir or MAILVERIFY_DATA_DIR, or add --create to make a new one there',
    );
  }
  return { dataDir: dir };
}

/** Opens the store for one command and always closes it, so no lock or connection outlives the command. */
export async function withStore<T>(flags: AdminStore, env: NodeJS.ProcessEnv, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(await storeLocation(flags, env)).catch((error: unknown) => {
    throw storeUnavailable(error) ?? error;
  });
  try {
    return await work(store);
  } catch (error) {
    // A taken address or a balance that would go negative is bad input from the operator: exit 2.
    if (error instanceof StoreError && (error.code === 'user_exists' || error.code === 'negative_balance')) {
      throw new UsageError(error.message);
    }
    throw error;
  } finally {
    await store.close();
  }
}
