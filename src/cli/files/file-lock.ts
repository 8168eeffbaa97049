import { open, stat, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFsError } from '../../text/fs-errors.js';

/** A lock this old was left by a process that died holding it: far beyond reading and writing a small file. */
const STALE_MS = 10_000;
/** Longest wait for a lock another process holds. */
const GIVE_UP_MS = 30_000;
const RETRY_MS = 20;

/**
 * Runs `work` while holding the lock file `path`, made with O_EXCL so that of processes asking at
 * once exactly one holds it; the others try again every few milliseconds. For short
 * read-modify-write sections only: a lock older than STALE_MS is taken for one whose holder died.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`).finally(() => handle.close());
      break;
    } catch (error) {
      if (!isFsError(error) || error.code !== 'EEXIST') throw error;
      const age = await stat(path).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (age > STALE_MS) await unlink(path).catch(() => undefined);
      else if (Date.now() > deadline) throw new Error(`${path} has been held by another process for ${GIVE_UP_MS / 1_000} s`);
      else await sleep(RETRY_MS + Math.random() * RETRY_MS);
    }
  }
  try {
    return await work();
  } finally {
    await unlink(path).catch(() => undefined);
  }
}
