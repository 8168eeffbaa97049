import { openConfigStore, type ConfigStore } from './config-store.js';

/** `mailverify serve`'s default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8025';

export type TokenSource = 'environment' | 'config';
export type BaseUrlSource = 'flag' | 'environment' | 'config' | 'default';

export interface Settings {
  baseUrl: string;
  baseUrlSource: BaseUrlSource;
  token?: string;
  /** Where the token came from; null when there is none. */
  tokenSource: TokenSource | null;
  configPath: string;
}

function given(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** Trailing slashes dropped, so that the same service always compares equal. */
export function normaliseBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Base URL and token, each by precedence flag > environment > config file > default.
 * A stored token is only used for the service it was stored for: pointing the CLI at another
 * base URL must not send that service our credentials.
 */
export function loadSettings(
  flags: { baseUrlFlag?: string },
  env: NodeJS.ProcessEnv = process.env,
  store: ConfigStore = openConfigStore(env),
): Settings {
  const stored = store.read();
  const candidates: [string | undefined, BaseUrlSource][] = [
    [given(flags.baseUrlFlag), 'flag'],
    [given(env.MAILVERIFY_BASE_URL), 'environment'],
    [given(stored.baseUrl), 'config'],
    [DEFAULT_BASE_URL, 'default'],
  ];
  const [rawBaseUrl, baseUrlSource] = candidates.find(([value]) => value !== undefined) as [string, BaseUrlSource];
  const baseUrl = normaliseBaseUrl(rawBaseUrl);

  const envToken = given(env.MAILVERIFY_TOKEN);
  const storedToken = stored.token !== undefined && stored.baseUrl !== undefined && normaliseBaseUrl(stored.baseUrl) === baseUrl ? stored.token : undefined;
  const token = envToken ?? storedToken;
  const tokenSource: TokenSource | null = envToken !== undefined ? 'environment' : storedToken !== undefined ? 'config' : null;
  return { baseUrl, baseUrlSource, token, tokenSource, configPath: store.path };
}
