import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private directory of this process's own under the OS temp dir. */
export interface TempDir {
  path: string;
  /** Removes it (again is harmless), unless kept. */
  remove(): Promise<void>;
  /** It outlives the command (something recorded its path): remove() and Ctrl-C leave it. */
  keep(): void;
}

/**
 * A temp directory that is gone when the command ends, however it ends: `remove()` in a `finally`
 * for success and errors, and a SIGINT listener for Ctrl-C, which kills Node before any `finally`
 * runs when nobody else listens. The listener takes itself off, removes the directory and, when no
 * other listener is left, raises SIGINT again so that the process dies of it as it would have;
 * taking itself off first lets a listener that checks it is alone (ora's signal-exit) still do so.
 */
export async function privateTempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  let kept = false;
  const onSigint = () => {
    process.off('SIGINT', onSigint);
    rmSync(path, { recursive: true, force: true });
    if (process.listenerCount('SIGINT') === 0) process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', onSigint);
  return {
    path,
    async remove() {
      process.off('SIGINT', onSigint);
      if (!kept) await rm(path, { recursive: true, force: true });
    },
    keep() {
      kept = true;
      process.off('SIGINT', onSigint);
    },
  };
}
