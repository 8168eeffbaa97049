import { randomBytes } from 'node:crypto';
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fsErrorText } from '../../text/fs-errors.js';

/**
 * The SQLite database's file in a data dir. Named here, beside the data dir, rather than only by the
 * SQLite store, so that asking whether a data dir holds a store does not load the SQLite driver.
 */
export const DATABASE_FILE = 'mailverify.db';

/** The OS's per-user data directory for mailverify (what `serve` and `admin` use when not told otherwise). */
export function dataDirDefault(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'mailverify', 'Data');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'mailverify');
  const xdg = env.XDG_DATA_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.local', 'share'), 'mailverify');
}

/** `--data-dir` > `MAILVERIFY_DATA_DIR` > the OS default. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env.MAILVERIFY_DATA_DIR;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : dataDirDefault(env);
}

/** The data dir resolved as above, made ready for use (see prepareDataDir); only the OS default gets missing parents created. */
export async function usableDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = resolveDataDir(flag, env);
  await prepareDataDir(dir, { createParents: dir === dataDirDefault(env) });
  return dir;
}

/** A data dir the service cannot use; the message is the one line the operator sees. */
export class DataDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirError';
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Makes sure `dir` can hold the service's files before anything starts: an existing directory, or
 * one created here (mode 0700) when only it is missing; its parents too only when `createParents`
 * (the OS default, whose ~/.local/share may not exist yet; a typo in --data-dir should not be
 * built). Then a file is written and removed there: permission bits say nothing to root, and a
 * read-only mount, /proc or /sys refuse only when tried.
 */
export async function prepareDataDir(dir: string, { createParents }: { createParents: boolean }): Promise<void> {
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new DataDirError(`cannot use the data directory ${dir}: ${fsErrorText(error)}`);
  });
  if (info === undefined) {
    if (!createParents && !(await exists(dirname(dir)))) {
      throw new DataDirError(`cannot create the data directory ${dir}: ${dirname(dir)} does not exist`);
    }
    await mkdir(dir, { recursive: createParents, mode: 0o700 }).catch(async (error: NodeJS.ErrnoException) => {
      // Another process (a second local run started at the same moment) may have made it since
      // the stat above: a directory there now is as good as one made here.
      if (
        error.code === 'EEXIST' &&
        (await stat(dir).then(
          (made) => made.isDirectory(),
          () => false,
        ))
      )
        return;
      throw new DataDirError(`cannot create the data directory ${dir}: ${fsErrorText(error)}`);
    });
  } else if (!info.isDirectory()) {
    throw new DataDirError(`the data directory ${dir} is not a directory`);
  }
  const probe = join(dir, `.write-test-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(probe, '', { flag: 'wx', mode: 0o600 });
    await unlink(probe);
  } catch (error) {
    throw new DataDirError(`cannot write in the data directory ${dir}: ${fsErrorText(error)}`);
  }
}
