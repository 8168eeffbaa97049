import { DataDirError, usableDataDir } from '../server/data-dir.js';
import { UsageError } from './errors.js';

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
