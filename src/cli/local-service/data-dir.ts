import { chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDirDefault, DataDirError, prepareDataDir, usableDataDir } from '../../server/store/open/open-store.js';
import { fsErrorText } from '../../text/fs-errors.js';
import { UsageError } from '../output/errors.js';

/**
 * The data dir of `serve` and `admin --create`, ready for use. One it cannot use is the
 * operator's to fix: one line and exit 2, before anything starts.
 */
export async function dataDirFor(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    return await usableDataDir(flag, env);
  } catch (error) {
    if (error instanceof DataDirError) throw new UsageError(error.message, 'choose another with --data-dir or MAILVERIFY_DATA_DIR');
    throw error;
  }
}

/**
 * Where `bulk submit --local` keeps its work (docs/cli.md "Clean a list on this machine"): `--data-dir` >
 * MAILVERIFY_LOCAL_DATA_DIR > the `local` folder of the OS data directory. Never the service's data
 * dir unless given (MAILVERIFY_DATA_DIR is the service's and is not read): a list cleaner's runs
 * are not a service's store, and the service's jobs are none of theirs.
 */
export function localDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env.MAILVERIFY_LOCAL_DATA_DIR;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(dataDirDefault(env), 'local');
}

/**
 * The local data dir, ready for use and private: it holds the addresses of the lists cleaned, so a
 * directory that other users can open is made 0700, and one this user cannot change is refused
 * with the fix. `notice` says when the mode was tightened.
 */
export async function privateLocalDataDir(flag: string | undefined, env: NodeJS.ProcessEnv, notice: (message: string) => void): Promise<string> {
  const dir = localDataDir(flag, env);
  const fix = 'choose another with --data-dir or MAILVERIFY_LOCAL_DATA_DIR';
  try {
    // As for the service's: only the default gets its missing parents made (a mistyped path is not built).
    await prepareDataDir(dir, { createParents: dir === join(dataDirDefault(env), 'local') });
  } catch (error) {
    if (error instanceof DataDirError) throw new UsageError(error.message, fix);
    throw error;
  }
  if (process.platform === 'win32') return dir;
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) === 0) return dir;
  try {
    await chmod(dir, 0o700);
  } catch (error) {
    throw new UsageError(
      `the data directory ${dir} can be opened by other users (mode ${mode.toString(8)}) and cannot be made private: ${fsErrorText(error)}`,
      `run chmod 700 ${dir}, or ${fix}`,
    );
  }
  notice(`made ${dir} private (mode 700 from ${mode.toString(8)}): it holds the addresses of the lists you clean`);
  return dir;
}
