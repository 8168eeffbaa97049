import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Conf from 'conf';

/** conf's options shared by every opening of our config: where it lives and how private it is. */
export const CONF_PROJECT = { projectName: 'mailverify', projectSuffix: '' } as const;
export const CONFIG_DIR_MODE = 0o700;
export const CONFIG_FILE_MODE = 0o600;

/**
 * The directory holding the config file and the CLI's local state (bulk job records), readable by
 * its owner only because it holds a token: `MAILVERIFY_CONFIG_DIR` (created 0700 when missing,
 * left as it is otherwise), or the OS's config directory for mailverify, which is ours and made 0700.
 */
export function ensureConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.MAILVERIFY_CONFIG_DIR;
  if (override !== undefined && override.trim() !== '') {
    const dir = resolve(override);
    // mkdir's mode is filtered by the umask; say it again for a directory made here.
    if (mkdirSync(dir, { recursive: true, mode: CONFIG_DIR_MODE }) !== undefined) chmodSync(dir, CONFIG_DIR_MODE);
    return dir;
  }
  // conf knows the OS's config directory, and creates it with the default mode on opening.
  const dir = dirname(new Conf(CONF_PROJECT).path);
  chmodSync(dir, CONFIG_DIR_MODE);
  return dir;
}
