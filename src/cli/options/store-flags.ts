import type { Command } from 'commander';
import { textFlag, type RawFlags } from './parsed-command.js';

/** The store flags as given (checked where the store is opened: store-location.ts). */
export interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
  storeTimeout?: string;
}

/** Where the store is: the options `serve`, `worker` and `admin` share. */
export function addStoreFlags(command: Command, dataDirDescription: string): Command {
  return command
    .option('--data-dir <dir>', `${dataDirDescription} [env MAILVERIFY_DATA_DIR] (default: the OS data directory)`)
    .option(
      '--database-url <url>',
      'keep everything in this PostgreSQL database instead of SQLite in the data dir, shared by every node given it (postgres://user@host/db; no password here, see PGPASSWORD) [env MAILVERIFY_DATABASE_URL]',
    )
    .option(
      '--store-timeout <ms>',
      'the time limit of every call to the database (a statement, a connection, a lock wait) [env MAILVERIFY_STORE_TIMEOUT] (default 4000)',
    );
}

export function storeFlags(flags: RawFlags): StoreFlags {
  return { dataDir: textFlag(flags, 'dataDir'), databaseUrl: textFlag(flags, 'databaseUrl'), storeTimeout: textFlag(flags, 'storeTimeout') };
}
