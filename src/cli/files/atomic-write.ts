import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { fsErrorText, isFsError } from '../../text/fs-errors.js';
import { InterruptedError, UsageError } from '../output/errors.js';

/** Signals that would otherwise kill the process mid-write and leave the temp file behind. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** Makes the rename itself durable; not every platform can open a directory, and that is fine. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    await handle.sync().finally(() => handle.close());
  } catch {
    // The file's own data is synced already; only the directory entry's durability is at stake.
  }
}

/**
 * Writes a file so that readers only ever see the old content or the complete new one: `write`
 * fills a temp file in the same directory, which is synced and then renamed over `path`. On an
 * error, or SIGINT/SIGTERM/SIGHUP while writing, the temp file is removed and `path` is untouched.
 * `mode` defaults to the replaced file's mode, else 0666 less the umask.
 */
/** Where the content goes before the rename: beside the target, so that the rename stays on one file system. */
function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** A missing or unwritable directory, or a directory where the file should be: the path as the user named it, not the temp file's (exit 2). */
function unwritable(path: string, error: unknown): unknown {
  return isFsError(error) ? new UsageError(`cannot write ${path}: ${fsErrorText(error)}`) : error;
}

/**
 * Fails now, the way writeFileAtomic would fail later, when `path` cannot be written: a directory
 * there, or a directory that is missing or refuses new files. For commands that would otherwise
 * pay for work (a bulk job) whose results then have nowhere to go.
 */
export async function checkWritable(path: string): Promise<void> {
  const target = resolve(path);
  if ((await stat(target).catch(() => undefined))?.isDirectory()) throw new UsageError(`cannot write ${path}: is a directory`);
  const temp = tempPathFor(target);
  try {
    await (await open(temp, 'wx', 0o600)).close();
  } catch (error) {
    throw unwritable(path, error);
  }
  await unlink(temp);
}

export async function writeFileAtomic(path: string, write: (out: NodeJS.WritableStream) => Promise<void>, options: { mode?: number } = {}): Promise<void> {
  const target = resolve(path);
  const temp = tempPathFor(target);
  const mode = options.mode ?? (await existingMode(target)) ?? 0o666;
  // `flush`: the data is fsynced before the file is closed, so the rename never exposes a file
  // whose content is not on disk yet.
  const out = createWriteStream(temp, { flags: 'wx', mode, flush: true });
  // Errors surface through `finished` below; without a listener an early one would crash the process.
  out.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  let interrupted: InterruptedError | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = new InterruptedError(`${signal} while writing ${path}; it was left as it was`);
    out.destroy(interrupted);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    await write(out);
    if (!out.writableEnded) out.end();
    await finished(out);
    if (interrupted) throw interrupted;
    await rename(temp, target);
  } catch (error) {
    out.destroy();
    // Only once the stream is closed is the temp file surely created (opening is asynchronous) and released.
    await closed;
    await unlink(temp).catch(() => undefined);
    throw interrupted ?? unwritable(path, error);
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
  await syncDirectory(dirname(target));
}

/** `writeFileAtomic` for content already in memory. */
export function writeTextAtomic(path: string, text: string, options: { mode?: number } = {}): Promise<void> {
  return writeFileAtomic(
    path,
    async (out) => {
      out.end(text);
      await finished(out);
    },
    options,
  );
}
