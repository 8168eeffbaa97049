import { DEFAULT_PROFILE, openConfigStore, PROFILE_NAME, PROFILE_NAME_RULE, type ConfigStore, type ProfileConfig } from './config-store.js';
import { readToken, type OpenKeyring } from './credentials.js';
import { ConfigError } from './errors.js';

/** `mailverify serve`'s default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8025';

/** `config` is the config file, `keyring` the OS keyring. */
export type TokenSource = 'environment' | 'keyring' | 'config';
export type BaseUrlSource = 'flag' | 'environment' | 'config' | 'default';
export type ProfileSource = 'flag' | 'environment' | 'config' | 'default';

export interface Settings {
  /** The profile in use, and how it was chosen. */
  profile: string;
  profileSource: ProfileSource;
  /** Whether the config file has this profile (a profile is made by `login`). */
  profileExists: boolean;
  baseUrl: string;
  baseUrlSource: BaseUrlSource;
  /** Read on first use: a keyring is asked only by commands that send the token. */
  readonly token: string | undefined;
  /** Where the token came from; null when there is none. */
  readonly tokenSource: TokenSource | null;
  /** Why the profile's token could not be read (its keyring does not answer), when that is so. */
  readonly tokenUnavailable: string | undefined;
  configPath: string;
}

function given(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** Trailing slashes dropped, so that the same service always compares equal. */
function normaliseBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A profile name: checked here too, as it names keyring entries. */
function checkProfileName(name: string, origin: string, path: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new ConfigError(`${origin}: "${name}" is not a profile name (${PROFILE_NAME_RULE})`, path);
  }
  return name;
}

/** Which profile: --profile > MAILVERIFY_PROFILE > `profile use` > default. */
function chooseProfile(flag: string | undefined, env: NodeJS.ProcessEnv, current: string | undefined, path: string): [string, ProfileSource] {
  const candidates: [string | undefined, ProfileSource, string][] = [
    [given(flag), 'flag', '--profile'],
    [given(env.MAILVERIFY_PROFILE), 'environment', 'MAILVERIFY_PROFILE'],
    [given(current), 'config', `${path} (currentProfile)`],
  ];
  const found = candidates.find(([value]) => value !== undefined);
  return found === undefined ? [DEFAULT_PROFILE, 'default'] : [checkProfileName(found[0]!, found[2], path), found[1]];
}

/**
 * The profile, base URL and token, each by precedence flag > environment > config file > default,
 * where a profile named with --profile counts as a flag for its service (it beats
 * MAILVERIFY_BASE_URL; --base-url beats it). A stored token is only used for the service it was
 * stored for: pointing the CLI at another base URL must not send that service our credentials.
 */
export function loadSettings(
  flags: { baseUrlFlag?: string; profileFlag?: string },
  env: NodeJS.ProcessEnv = process.env,
  store: ConfigStore = openConfigStore(env),
  openKeyring?: OpenKeyring,
): Settings {
  const stored = store.read();
  const [profile, profileSource] = chooseProfile(flags.profileFlag, env, stored.currentProfile, store.path);
  const saved: ProfileConfig | undefined = stored.profiles[profile];
  const savedUrl = given(saved?.baseUrl);
  const candidates: [string | undefined, BaseUrlSource][] = [
    [given(flags.baseUrlFlag), 'flag'],
    [profileSource === 'flag' ? savedUrl : undefined, 'config'],
    [given(env.MAILVERIFY_BASE_URL), 'environment'],
    [savedUrl, 'config'],
    [DEFAULT_BASE_URL, 'default'],
  ];
  const [rawBaseUrl, baseUrlSource] = candidates.find(([value]) => value !== undefined) as [string, BaseUrlSource];
  const baseUrl = normaliseBaseUrl(rawBaseUrl);

  let resolved: { token?: string; tokenSource: TokenSource | null; unavailable?: string } | undefined;
  const resolve = () => {
    if (resolved !== undefined) return resolved;
    const envToken = given(env.MAILVERIFY_TOKEN);
    if (envToken !== undefined) return (resolved = { token: envToken, tokenSource: 'environment' });
    if (saved === undefined || savedUrl === undefined || normaliseBaseUrl(savedUrl) !== baseUrl) return (resolved = { tokenSource: null });
    const { token, unavailable } = readToken(store, profile, saved, openKeyring);
    const source: TokenSource = saved.tokenIn === 'keyring' ? 'keyring' : 'config';
    return (resolved = token === undefined ? { tokenSource: null, unavailable } : { token, tokenSource: source });
  };
  return {
    profile,
    profileSource,
    profileExists: saved !== undefined,
    baseUrl,
    baseUrlSource,
    get token() {
      return resolve().token;
    },
    get tokenSource() {
      return resolve().tokenSource;
    },
    get tokenUnavailable() {
      return resolve().unavailable;
    },
    configPath: store.path,
  };
}
