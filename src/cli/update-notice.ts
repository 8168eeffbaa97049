import { spawn } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCacheDir } from '../config/state.js';
import { VERSION } from '../version.js';
import { inCi } from './output/ci.js';

/**
 * The update notice (docs/architecture.md "The update notice"), as npm's update-notifier does it:
 * after a command, a line on stderr when the last check found a newer release; the check itself is
 * a detached child that asks the npm registry and leaves its answer in the OS cache dir for the next
 * run (everyone has one, logged in or not), so no command ever waits for it or fails by it. At most one check and one notice a day.
 */

const PACKAGE_NAME = 'mailverify';
export const DEFAULT_REGISTRY = 'https://registry.npmjs.org';
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the cache dir's update-check.json remembers between runs (times in ms since the epoch). */
export interface UpdateState {
  /** When a check was last started (a child spawned). */
  lastCheck?: number;
  /** The registry's `latest` at the last answer. */
  latest?: string;
  /** When the registry last answered, or last failed to; the child writes one of them as it ends. */
  answeredAt?: number;
  failedAt?: number;
  /** When the notice was last shown. */
  lastNotice?: number;
}

export const stateFile = (dir: string) => join(dir, 'update-check.json');

export function readState(path: string): UpdateState {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as UpdateState) : {};
  } catch {
    return {};
  }
}

/** Whole, by rename: a run reading it meanwhile sees the old state or the new one. */
export function writeState(path: string, state: UpdateState): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

const set = (value: string | undefined) => value !== undefined && value !== '';

/** Where the notice may appear at all: a person's terminal, not a script, a pipe or CI. */
export function noticeAllowed(options: { isTty: boolean; json: boolean; quiet: boolean; env: NodeJS.ProcessEnv }): boolean {
  const { env } = options;
  return options.isTty && !options.json && !options.quiet && !inCi(env) && !set(env.NO_UPDATE_NOTIFIER) && !set(env.MAILVERIFY_NO_UPDATE_CHECK);
}

/** The registry npm itself would ask (`npm_config_registry`), or MAILVERIFY_UPDATE_REGISTRY; only http(s). */
export function registryUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = [env.MAILVERIFY_UPDATE_REGISTRY, env.npm_config_registry].find(set) ?? DEFAULT_REGISTRY;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? raw.replace(/\/+$/, '') : undefined;
  } catch {
    return undefined;
  }
}

const RELEASE = /^(\d+)\.(\d+)\.(\d+)$/;

/** A plain release version (1.2.3), what `latest` should be. */
export const isRelease = (version: string) => RELEASE.test(version);

/** Whether `latest` is a release above `current` (a pre-release is never offered). */
export function isNewer(latest: string | undefined, current: string): boolean {
  const theirs = latest === undefined ? null : RELEASE.exec(latest);
  const ours = /^(\d+)\.(\d+)\.(\d+)/.exec(current);
  if (theirs === null || ours === null) return false;
  for (let part = 1; part <= 3; part++) {
    if (Number(theirs[part]) !== Number(ours[part])) return Number(theirs[part]) > Number(ours[part]);
  }
  return false;
}

/** What to do now, from the state: say a newer version (once a day), start a check (once a day). */
export function plan(state: UpdateState, now: number, current = VERSION): { notice?: string; check: boolean } {
  const notice =
    isNewer(state.latest, current) && now - (state.lastNotice ?? 0) >= DAY_MS
      ? `mailverify ${state.latest} is available (this is ${current}): npm install -g ${PACKAGE_NAME}@latest`
      : undefined;
  return { notice, check: now - (state.lastCheck ?? 0) >= DAY_MS };
}

/** The child's entry (update-check.js beside this file, built to dist/cli/). */
const CHECKER = fileURLToPath(new URL('./update-check.js', import.meta.url));

/**
 * After a command: the notice when due, and a check started when due. Every failure here is
 * swallowed: a notice is a courtesy, never a reason for a command to fail.
 */
export function afterCommand(options: {
  json: boolean;
  quiet: boolean;
  env: NodeJS.ProcessEnv;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where the state lives, made when needed: the OS cache dir unless a test says otherwise. */
  stateDir?: () => string;
}): void {
  const { env, stderr } = options;
  if (!noticeAllowed({ ...options, isTty: stderr.isTTY === true })) return;
  try {
    const registry = registryUrl(env);
    // In the cache dir, made when needed: never beside a config dir, which a user of --local alone may never have.
    const path = stateFile((options.stateDir ?? ensureCacheDir)());
    const state = readState(path);
    const now = Date.now();
    const { notice, check } = plan(state, now);
    if (notice === undefined && (!check || registry === undefined)) return;
    if (notice !== undefined) stderr.write(`\n${notice}\n`);
    const started = check && registry !== undefined;
    // Written before the child starts: runs meanwhile do not start checks of their own.
    writeState(path, { ...state, ...(notice === undefined ? {} : { lastNotice: now }), ...(started ? { lastCheck: now } : {}) });
    if (started)
      spawn(process.execPath, [CHECKER, path, `${registry}/${PACKAGE_NAME}`], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, MAILVERIFY_TOKEN: undefined },
      }).unref();
  } catch {
    // Nothing to say: see above.
  }
}
