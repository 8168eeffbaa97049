import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../src/config/config-store.js';
import { ConfigError } from '../../src/config/errors.js';
import { DEFAULT_BASE_URL, loadSettings } from '../../src/config/settings.js';
import { ensureConfigDir } from '../../src/config/state.js';

let root: string;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mailverify-config-'));
  dir = join(root, 'nested', 'config');
  env = { MAILVERIFY_CONFIG_DIR: dir };
});
afterEach(() => rm(root, { recursive: true, force: true }));

const SERVICE = 'http://127.0.0.1:9000';

describe('the config store', () => {
  it('writes the file 0600 in a directory it creates 0700', async () => {
    const store = openConfigStore(env);
    store.saveLogin({ baseUrl: SERVICE, token: 'mv_abc', tokenId: 't1' });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect(openConfigStore(env).read()).toEqual({ baseUrl: SERVICE, token: 'mv_abc', tokenId: 't1' });
  });

  it.runIf(process.platform === 'linux')('makes the default directory (the XDG one) private too', async () => {
    const previous = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = join(root, 'xdg');
    try {
      const defaultDir = ensureConfigDir({});
      expect(defaultDir).toBe(join(root, 'xdg', 'mailverify'));
      expect((await stat(defaultDir)).mode & 0o777).toBe(0o700);
    } finally {
      if (previous === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = previous;
    }
  });

  it('replaces a previous login whole and forgets it', () => {
    const store = openConfigStore(env);
    store.saveLogin({ baseUrl: SERVICE, token: 'mv_old', tokenId: 'old' });
    store.saveLogin({ baseUrl: SERVICE, token: 'mv_new' });
    expect(store.read()).toEqual({ baseUrl: SERVICE, token: 'mv_new' });
    store.forgetLogin();
    expect(openConfigStore(env).read()).toEqual({});
  });

  it('names the file when it cannot be read', async () => {
    openConfigStore(env).saveLogin({ baseUrl: SERVICE, token: 'mv_abc' });
    await writeFile(join(dir, 'config.json'), '{ not json');
    expect(() => openConfigStore(env)).toThrow(ConfigError);
    await writeFile(join(dir, 'config.json'), '{"token": 42}');
    expect(() => openConfigStore(env).read()).toThrow(/"token" must be a string/);
  });
});

describe('loadSettings', () => {
  it('defaults to the local service with no token', () => {
    expect(loadSettings({}, env)).toMatchObject({ baseUrl: DEFAULT_BASE_URL, baseUrlSource: 'default', token: undefined, tokenSource: null });
  });

  it('takes the base URL from flag, then environment, then file', () => {
    openConfigStore(env).saveLogin({ baseUrl: `${SERVICE}/`, token: 'mv_file' });
    expect(loadSettings({}, env)).toMatchObject({ baseUrl: SERVICE, baseUrlSource: 'config' });
    const withEnv = { ...env, MAILVERIFY_BASE_URL: 'http://127.0.0.2:1' };
    expect(loadSettings({}, withEnv)).toMatchObject({ baseUrl: 'http://127.0.0.2:1', baseUrlSource: 'environment' });
    expect(loadSettings({ baseUrlFlag: 'http://127.0.0.3:1' }, withEnv)).toMatchObject({ baseUrl: 'http://127.0.0.3:1', baseUrlSource: 'flag' });
  });

  it('prefers MAILVERIFY_TOKEN to the stored token', () => {
    openConfigStore(env).saveLogin({ baseUrl: SERVICE, token: 'mv_file' });
    expect(loadSettings({}, env)).toMatchObject({ token: 'mv_file', tokenSource: 'config' });
    expect(loadSettings({}, { ...env, MAILVERIFY_TOKEN: 'mv_env' })).toMatchObject({ token: 'mv_env', tokenSource: 'environment' });
  });

  it('never sends the stored token to another service', () => {
    openConfigStore(env).saveLogin({ baseUrl: SERVICE, token: 'mv_file' });
    expect(loadSettings({ baseUrlFlag: 'http://elsewhere.example' }, env)).toMatchObject({ token: undefined, tokenSource: null });
  });
});
