import { chmodSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import envPaths from 'env-paths';

/** conf's options shared by every opening of our config: where it lives and how private it is. */
export const CONF_PROJECT = { projectName: 'mailverify', projectSuffix: '' } as const;
const CONFIG_DIR_MODE = 0o700;
export const CONFIG_FILE_MODE = 0o600;

/**
 * Where the config lives, made or not: `MAILVERIFY_CONFIG_DIR`, or the OS's config directory for
 * mailverify (what conf itself would choose). Cheap: the update notice asks it after any command.
 */
export function configDirPath(env: NodeJS.ProcessEnv = process.env): { dir: string; overridden: boolean } {
  const override = env.MAILVERIFY_CONFIG_DIR;
  if (override !== undefined && override.trim() !== '') return { dir: resolve(override), overridden: true };
  return { dir: envPaths(CONF_PROJECT.projectName, { suffix: CONF_PROJECT.projectSuffix }).config, overridden: false };
}

/**
 * Where the CLI keeps what it may lose (the update check's state): the OS's cache directory for
 * mailverify (`$XDG_CACHE_HOME/mailverify` or `~/.cache/mailverify` on Linux), made private when
 * first needed. Apart from the config, so that a user who never logged in has one too.
 */
export function ensureCacheDir(): string {
  const dir = envPaths(CONF_PROJECT.projectName, { suffix: CONF_PROJECT.projectSuffix }).cache;
  if (mkdirSync(dir, { recursive: true, mode: CONFIG_DIR_MODE }) !== undefined) chmodSync(dir, CONFIG_DIR_MODE);
  return dir;
}

/**
 * The directory holding the config file and the CLI's local state (bulk job records), readable by
 * its owner only because it holds a token: `MAILVERIFY_CONFIG_DIR` (created 0700 when missing,
 * left as it is otherwise), or the OS's config directory for mailverify, which is ours and made 0700.
 */
export function ensureConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const { dir, overridden } = configDirPath(env);
  // mkdir's mode is filtered by the umask; say it again for a directory made here (and always for ours).
  const made = mkdirSync(dir, { recursive: true, mode: CONFIG_DIR_MODE }) !== undefined;
  if (made || !overridden) chmodSync(dir, CONFIG_DIR_MODE);
  return dir;
}
