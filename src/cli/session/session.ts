import { createApiClient, type ApiClient } from '../../client/api-client.js';
import { ApiError, RateLimitedError } from '../../client/errors.js';
import type { RetryPolicy } from '../../client/retry.js';
import { openConfigStore, type ConfigStore } from '../../config/config-store.js';
import { PROFILE_NAME, PROFILE_NAME_RULE, type ProfileConfig } from '../../config/config-store.js';
import { loadSettings, type Settings, type TokenSource } from '../../config/settings.js';
import { terminalSafe } from '../../text/sanitize.js';
import { NotAuthenticatedError, UsageError, WITHOUT_A_SERVICE } from '../output/errors.js';
import { until } from '../output/format.js';
import { waitNotice, type Io } from '../output/io.js';
import type { ProgramOptions } from '../options/program-options.js';

/**
 * Everything a command that talks to the service needs, built in one place from the flags, the
 * environment and the config file: where to print, which service, which token, a client.
 */
export interface Session {
  io: Io;
  settings: Settings;
  config: ConfigStore;
  env: NodeJS.ProcessEnv;
  /** A client with the settings' token, or exit 4 with the login hint when there is none. */
  authenticatedClient(): ApiClient;
  /** A client with an explicit token (or none), for login and logout. */
  client(options: { token?: string; baseUrl?: string }): ApiClient;
  /** A message about what happened, on stderr; silenced by --quiet and --json. Controls in it are shown, not run. */
  notice(message: string): void;
  /** Something the user must know even with --quiet, on stderr. */
  warn(message: string): void;
  /** Closes every client's connections. */
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Aborts requests and retry waits (Ctrl-C during long commands). */
  signal?: AbortSignal;
  /** A profile named with --profile or MAILVERIFY_PROFILE may be one not made yet (login makes it). */
  newProfile?: boolean;
}

/** Not a documented option: lets tests (and impatient scripts) bound the retries. */
const RETRY_ENV = { maxAttempts: 'MAILVERIFY_RETRY_MAX_ATTEMPTS', maxElapsedMs: 'MAILVERIFY_RETRY_MAX_ELAPSED_MS' } as const;

function positiveInteger(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${name} must be a whole number above 0, got "${raw}"`);
  return value;
}

function retryFrom(env: NodeJS.ProcessEnv): Partial<RetryPolicy> {
  const policy: Partial<RetryPolicy> = {};
  for (const [key, name] of Object.entries(RETRY_ENV) as [keyof typeof RETRY_ENV, string][]) {
    const raw = env[name];
    if (raw !== undefined && raw.trim() !== '') policy[key] = positiveInteger(raw.trim(), name);
  }
  return policy;
}

/** Waits shorter than this pass without a word: a message for each would be noise. */
const ANNOUNCED_WAIT_MS = 1_000;

/** Why a request is tried again, for the message about the wait. */
function retryReason(error: unknown): string {
  if (error instanceof RateLimitedError) return 'the service is rate limiting this account (429)';
  if (error instanceof ApiError) return `the service answered ${error.status}`;
  return error instanceof Error ? error.message : String(error);
}

/** Says on stderr what a wait of `ms` is for and until when ("…; trying again in 40s (at 14:03:10)"), unless it is short. */
export function announceWait(io: Io, ms: number, what: string, then = 'trying again'): void {
  if (ms >= ANNOUNCED_WAIT_MS) waitNotice(io, `${what}; ${then} ${until(ms)}`);
}

const BASE_URL_ORIGIN = { flag: '--base-url', environment: 'MAILVERIFY_BASE_URL', config: 'the config file', default: 'the default' } as const;

const TOKEN_ORIGIN: Record<TokenSource, (configPath: string) => string> = {
  environment: () => 'the environment (MAILVERIFY_TOKEN)',
  keyring: () => 'the OS keyring',
  config: (configPath) => `the config file (${configPath})`,
};

/** Where the token in use came from, in words (whoami and doctor). */
export function tokenOrigin(settings: Settings): string {
  return settings.tokenSource === null ? 'nowhere (not logged in)' : TOKEN_ORIGIN[settings.tokenSource](settings.configPath);
}

/** The profile named with --profile or MAILVERIFY_PROFILE, checked before anything reads the config. */
function checkProfileNamed(flags: ProgramOptions, env: NodeJS.ProcessEnv): void {
  const named: [string | undefined, string][] = [
    [flags.profile, '--profile'],
    [env.MAILVERIFY_PROFILE, 'MAILVERIFY_PROFILE'],
  ];
  for (const [raw, origin] of named) {
    const name = raw?.trim();
    if (name !== undefined && name !== '') checkProfileName(name, `${origin}: `);
  }
}

/** A profile name from the user (letters, digits, . _ -), or exit 2. */
export function checkProfileName(name: string, origin = ''): void {
  if (!PROFILE_NAME.test(name)) throw new UsageError(`${origin}"${name}" is not a profile name`, PROFILE_NAME_RULE);
}

/** Exit 2 for a profile that is not there, saying how to see the others and how to make it. */
function noSuchProfile(name: string, origin = ''): UsageError {
  return new UsageError(`no profile named "${name}"${origin}`, `\`mailverify profile list\` shows them; \`mailverify login --profile ${name}\` makes it`);
}

/** A stored profile named by the user (`profile use|remove`), or exit 2. */
export function knownProfile(config: ConfigStore, name: string): ProfileConfig {
  checkProfileName(name);
  const profile = config.read().profiles[name];
  if (profile === undefined) throw noSuchProfile(name);
  return profile;
}

/** A named profile that does not exist is most likely a typo: going on would send nothing, or to the wrong service. */
function checkProfileExists(settings: Settings, options: SessionOptions): void {
  if (settings.profileExists || options.newProfile || settings.profileSource === 'default' || settings.profileSource === 'config') return;
  throw noSuchProfile(settings.profile, ` (from ${settings.profileSource === 'flag' ? '--profile' : 'MAILVERIFY_PROFILE'})`);
}

/** "not logged in to …" with the profile named when there are several to choose from. */
function notLoggedIn(settings: Settings): NotAuthenticatedError {
  const profile = settings.profileSource === 'default' ? '' : ` (profile ${settings.profile})`;
  if (settings.tokenUnavailable !== undefined) {
    return new NotAuthenticatedError(
      `the token for ${settings.baseUrl}${profile} is in the OS keyring, which does not answer: ${settings.tokenUnavailable}`,
      'unlock the keyring, set MAILVERIFY_TOKEN, or log in again (`mailverify login --insecure-storage` keeps the token in the config file)',
    );
  }
  return new NotAuthenticatedError(`not logged in to ${settings.baseUrl}${profile}`, `run \`mailverify login\`, or set MAILVERIFY_TOKEN; ${WITHOUT_A_SERVICE}`);
}

function checkBaseUrl(settings: Settings): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(settings.baseUrl).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new UsageError(`the base URL from ${BASE_URL_ORIGIN[settings.baseUrlSource]} is not an http(s) URL: "${settings.baseUrl}"`);
  }
}

/** A session for a command run with these program-wide flags, printing and reading the environment through `io`. */
export function createSession(flags: ProgramOptions, io: Io, options: SessionOptions = {}): Session {
  const { env } = io;
  if (flags.timeout !== undefined && !(Number.isFinite(flags.timeout) && flags.timeout > 0)) {
    throw new UsageError('--timeout takes a number of milliseconds above 0');
  }
  const retry = retryFrom(env);
  checkProfileNamed(flags, env);
  const config = openConfigStore(env);
  const settings = loadSettings({ baseUrlFlag: flags.baseUrl, profileFlag: flags.profile }, env, config);
  checkProfileExists(settings, options);
  checkBaseUrl(settings);
  const clients: ApiClient[] = [];

  const client: Session['client'] = ({ token, baseUrl }) => {
    const created = createApiClient({
      baseUrl: baseUrl ?? settings.baseUrl,
      token,
      timeoutMs: flags.timeout,
      retry,
      debug: flags.debug ? io.stderr : undefined,
      signal: options.signal,
      onRetryWait: (error, delayMs) => announceWait(io, delayMs, retryReason(error)),
    });
    clients.push(created);
    return created;
  };

  return {
    io,
    settings,
    config,
    env,
    client,
    authenticatedClient() {
      if (settings.token === undefined) throw notLoggedIn(settings);
      return client({ token: settings.token });
    },
    notice(message) {
      if (!io.quiet && !io.json) io.stderr.write(`${terminalSafe(message)}\n`);
    },
    warn(message) {
      io.stderr.write(`mailverify: warning: ${terminalSafe(message)}\n`);
    },
    async close() {
      await Promise.all(clients.map((each) => each.close()));
    },
  };
}
