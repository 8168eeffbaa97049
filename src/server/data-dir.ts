import { homedir } from 'node:os';
import { join } from 'node:path';

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
