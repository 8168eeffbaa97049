import Conf from 'conf';
import { ConfigError } from './errors.js';
import { CONF_PROJECT, CONFIG_FILE_MODE, ensureConfigDir } from './state.js';

/** The profile used when none is named or chosen: also where a config from before profiles lives on. */
export const DEFAULT_PROFILE = 'default';

/** One service the CLI is logged in to (docs/architecture.md "Profiles and the keyring"). */
export interface ProfileConfig {
  /** The service the token belongs to. */
  baseUrl?: string;
  /** The token itself, when it is kept in this file (no keyring, or `login --insecure-storage`). */
  token?: string;
  /** Set when the token is in the OS keyring instead: the file then holds no token. */
  tokenIn?: 'keyring';
  /** Set when this CLI created the token (login with a password), so that logout can revoke it. */
  tokenId?: string;
}

/** What the CLI remembers between runs. */
export interface StoredConfig {
  /** Chosen with `profile use`; `default` when unset. */
  currentProfile?: string;
  profiles: Record<string, ProfileConfig>;
}

export interface ConfigStore {
  readonly path: string;
  /** The directory of the config file. */
  readonly dir: string;
  read(): StoredConfig;
  /** Replaces a profile whole (creating it), so a crash never leaves a token paired with another login's id. */
  saveProfile(name: string, profile: ProfileConfig): void;
  /** Removes a profile; the current one falls back to `default`. */
  removeProfile(name: string): void;
  useProfile(name: string): void;
}

const PROFILE_KEYS = ['baseUrl', 'token', 'tokenIn', 'tokenId'] as const;
/** The keys of the file before profiles: one login at the top level. */
const LEGACY_KEYS = ['baseUrl', 'token', 'tokenId'] as const;

/** Profile names are also keyring account names and appear in messages: kept plain. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** PROFILE_NAME in words, for the messages that refuse a name. */
export const PROFILE_NAME_RULE = 'letters, digits, . _ and -, at most 64, starting with a letter or digit';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function profileFrom(raw: unknown, where: string, path: string): ProfileConfig {
  if (!isRecord(raw)) throw new ConfigError(`${path}: "${where}" must be an object`, path);
  const profile: ProfileConfig = {};
  for (const key of PROFILE_KEYS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new ConfigError(`${path}: "${where}.${key}" must be a string`, path);
    if (key === 'tokenIn') {
      if (value !== 'keyring') throw new ConfigError(`${path}: "${where}.tokenIn" must be "keyring"`, path);
      profile.tokenIn = value;
    } else profile[key] = value;
  }
  return profile;
}

/**
 * The file as this version writes it, or as versions before profiles wrote it (`baseUrl`, `token`,
 * `tokenId` at the top level): that login reads as the `default` profile, and moves there, whole,
 * at the next write.
 */
function parse(raw: Record<string, unknown>, path: string): StoredConfig {
  const profiles: Record<string, ProfileConfig> = {};
  if (raw.profiles !== undefined) {
    if (!isRecord(raw.profiles)) throw new ConfigError(`${path}: "profiles" must be an object`, path);
    for (const [name, profile] of Object.entries(raw.profiles)) profiles[name] = profileFrom(profile, `profiles.${name}`, path);
  }
  const legacy = LEGACY_KEYS.filter((key) => raw[key] !== undefined);
  if (legacy.length > 0 && profiles[DEFAULT_PROFILE] === undefined) {
    profiles[DEFAULT_PROFILE] = profileFrom(Object.fromEntries(legacy.map((key) => [key, raw[key]])), DEFAULT_PROFILE, path);
  }
  const current = raw.currentProfile;
  if (current !== undefined && typeof current !== 'string') throw new ConfigError(`${path}: "currentProfile" must be a string`, path);
  return current === undefined ? { profiles } : { currentProfile: current, profiles };
}

/** The config file on conf (JSON, written atomically, mode 0600 in a 0700 directory). */
export function openConfigStore(env: NodeJS.ProcessEnv = process.env): ConfigStore {
  // conf would create a missing directory with the default mode as soon as it opens: make it first.
  const cwd = ensureConfigDir(env);
  let conf: Conf<Record<string, unknown>>;
  try {
    conf = new Conf<Record<string, unknown>>({ ...CONF_PROJECT, cwd, configFileMode: CONFIG_FILE_MODE });
  } catch (error) {
    throw new ConfigError(`cannot read the config in ${cwd}: ${error instanceof Error ? error.message : String(error)}`, cwd);
  }
  const path = conf.path;
  const read = () => parse(conf.store, path);
  // Every write is of the whole file in the current shape: one rename, and no top-level login left over.
  const write = (config: StoredConfig) => {
    conf.store = config.currentProfile === undefined ? { profiles: config.profiles } : { currentProfile: config.currentProfile, profiles: config.profiles };
  };

  return {
    path,
    dir: cwd,
    read,
    saveProfile(name, profile) {
      const config = read();
      write({ ...config, profiles: { ...config.profiles, [name]: profile } });
    },
    removeProfile(name) {
      const { currentProfile, profiles } = read();
      delete profiles[name];
      write({ currentProfile: currentProfile === name ? undefined : currentProfile, profiles });
    },
    useProfile(name) {
      write({ ...read(), currentProfile: name === DEFAULT_PROFILE ? undefined : name });
    },
  };
}
