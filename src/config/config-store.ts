import Conf from 'conf';
import { ConfigError } from './errors.js';
import { CONF_PROJECT, CONFIG_FILE_MODE, ensureConfigDir } from './state.js';

/** What the CLI remembers between runs. */
export interface StoredConfig {
  /** The service the token belongs to. */
  baseUrl?: string;
  token?: string;
  /** Set when this CLI created the token (login with a password), so that logout can revoke it. */
  tokenId?: string;
}

export interface ConfigStore {
  readonly path: string;
  read(): StoredConfig;
  /** Remembers a token for a service, replacing any previous login. */
  saveLogin(login: { baseUrl: string; token: string; tokenId?: string }): void;
  forgetLogin(): void;
}

const KEYS = ['baseUrl', 'token', 'tokenId'] as const;

/** The config file on conf (JSON, written atomically, mode 0600 in a 0700 directory). */
export function openConfigStore(env: NodeJS.ProcessEnv = process.env): ConfigStore {
  // conf would create a missing directory with the default mode as soon as it opens: make it first.
  const cwd = ensureConfigDir(env);
  let conf: Conf<StoredConfig>;
  try {
    conf = new Conf<StoredConfig>({ ...CONF_PROJECT, cwd, configFileMode: CONFIG_FILE_MODE });
  } catch (error) {
    throw new ConfigError(`cannot read the config in ${cwd}: ${error instanceof Error ? error.message : String(error)}`, cwd);
  }
  const path = conf.path;

  return {
    path,
    read() {
      const stored: StoredConfig = {};
      for (const key of KEYS) {
        const value: unknown = conf.get(key);
        if (value === undefined) continue;
        if (typeof value !== 'string') throw new ConfigError(`${path}: "${key}" must be a string`, path);
        stored[key] = value;
      }
      return stored;
    },
    saveLogin({ baseUrl, token, tokenId }) {
      // One write, so a crash never leaves a token paired with another login's id.
      conf.store = tokenId === undefined ? { baseUrl, token } : { baseUrl, token, tokenId };
    },
    forgetLogin() {
      conf.store = {};
    },
  };
}
