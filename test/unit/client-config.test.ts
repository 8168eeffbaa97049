import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfigStore, type ConfigStore } from '../../src/config/config-store.js';
import { forgetToken, removeProfile, saveLogin, type OpenKeyring } from '../../src/config/credentials.js';
import { ConfigError, KeyringError } from '../../src/config/errors.js';
import { keyringAccount, type Keyring } from '../../src/config/keyring.js';
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
const OTHER = 'http://127.0.0.2:9000';

/** No keyring here: these tests are of the file (the real Secret Service is in test/e2e/cli-keyring.test.ts). */
const noKeyring: OpenKeyring = () => ({ unavailable: 'no Secret Service in this test' });
/** A keyring held in a Map, standing for the OS one in tests of what goes where. */
function mapKeyring(): { open: OpenKeyring; entries: Map<string, string> } {
  const entries = new Map<string, string>();
  const keyring: Keyring = {
    get: (account) => entries.get(account),
    set: (account, secret) => void entries.set(account, secret),
    delete: (account) => entries.delete(account),
  };
  return { open: () => ({ keyring }), entries };
}
const fileLogin = (store: ConfigStore, login: { baseUrl: string; token: string; tokenId?: string }, profile = 'default') =>
  saveLogin(store, profile, login, { open: noKeyring });

describe('the config store', () => {
  it('writes the file 0600 in a directory it creates 0700', async () => {
    const store = openConfigStore(env);
    expect(fileLogin(store, { baseUrl: SERVICE, token: 'mv_abc', tokenId: 't1' })).toEqual({ in: 'file', fallback: 'no Secret Service in this test' });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect(openConfigStore(env).read()).toEqual({ profiles: { default: { baseUrl: SERVICE, token: 'mv_abc', tokenId: 't1' } } });
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

  it('replaces a previous login whole and forgets its token, keeping its service', () => {
    const store = openConfigStore(env);
    fileLogin(store, { baseUrl: SERVICE, token: 'mv_old', tokenId: 'old' });
    fileLogin(store, { baseUrl: SERVICE, token: 'mv_new' });
    expect(store.read().profiles.default).toEqual({ baseUrl: SERVICE, token: 'mv_new' });
    forgetToken(store, 'default', noKeyring);
    expect(openConfigStore(env).read()).toEqual({ profiles: { default: { baseUrl: SERVICE } } });
  });

  it('names the file when it cannot be read', async () => {
    fileLogin(openConfigStore(env), { baseUrl: SERVICE, token: 'mv_abc' });
    await writeFile(join(dir, 'config.json'), '{ not json');
    expect(() => openConfigStore(env)).toThrow(ConfigError);
    await writeFile(join(dir, 'config.json'), '{"token": 42}');
    expect(() => openConfigStore(env).read()).toThrow(/"default.token" must be a string/);
    await writeFile(join(dir, 'config.json'), '{"profiles": {"a": {"tokenIn": "drawer"}}}');
    expect(() => openConfigStore(env).read()).toThrow(/"profiles.a.tokenIn" must be "keyring"/);
  });
});

describe('profiles', () => {
  it('reads a config file of the version before profiles as the default profile, and keeps all of it at the next write', async () => {
    // Byte for byte as that version wrote it (conf: tab-indented JSON, mode 0600).
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'config.json'), `{\n\t"baseUrl": "${SERVICE}",\n\t"token": "mv_old",\n\t"tokenId": "tok_1"\n}`, { mode: 0o600 });
    expect(loadSettings({}, env, undefined, noKeyring)).toMatchObject({
      profile: 'default',
      profileSource: 'default',
      profileExists: true,
      baseUrl: SERVICE,
      baseUrlSource: 'config',
      token: 'mv_old',
      tokenSource: 'config',
    });

    const store = openConfigStore(env);
    fileLogin(store, { baseUrl: OTHER, token: 'mv_b' }, 'b');
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toEqual({
      profiles: { default: { baseUrl: SERVICE, token: 'mv_old', tokenId: 'tok_1' }, b: { baseUrl: OTHER, token: 'mv_b' } },
    });
    expect(loadSettings({}, env, undefined, noKeyring)).toMatchObject({ profile: 'default', baseUrl: SERVICE, token: 'mv_old' });
  });

  it('chooses the profile by --profile, then MAILVERIFY_PROFILE, then `profile use`, then default', () => {
    const store = openConfigStore(env);
    fileLogin(store, { baseUrl: SERVICE, token: 'mv_a' }, 'a');
    fileLogin(store, { baseUrl: OTHER, token: 'mv_b' }, 'b');
    expect(loadSettings({}, env, store, noKeyring)).toMatchObject({
      profile: 'default',
      profileSource: 'default',
      profileExists: false,
      baseUrl: DEFAULT_BASE_URL,
      token: undefined,
    });
    store.useProfile('a');
    expect(loadSettings({}, env, store, noKeyring)).toMatchObject({ profile: 'a', profileSource: 'config', baseUrl: SERVICE, token: 'mv_a' });
    const withEnv = { ...env, MAILVERIFY_PROFILE: 'b' };
    expect(loadSettings({}, withEnv, store, noKeyring)).toMatchObject({ profile: 'b', profileSource: 'environment', baseUrl: OTHER, token: 'mv_b' });
    expect(loadSettings({ profileFlag: 'a' }, withEnv, store, noKeyring)).toMatchObject({
      profile: 'a',
      profileSource: 'flag',
      baseUrl: SERVICE,
      token: 'mv_a',
    });
  });

  it('a profile named with --profile beats MAILVERIFY_BASE_URL; --base-url beats both, and then no stored token is sent', () => {
    const store = openConfigStore(env);
    fileLogin(store, { baseUrl: SERVICE, token: 'mv_a' }, 'a');
    store.useProfile('a');
    const withUrl = { ...env, MAILVERIFY_BASE_URL: OTHER };
    expect(loadSettings({}, withUrl, store, noKeyring)).toMatchObject({ baseUrl: OTHER, baseUrlSource: 'environment', token: undefined });
    expect(loadSettings({ profileFlag: 'a' }, withUrl, store, noKeyring)).toMatchObject({ baseUrl: SERVICE, baseUrlSource: 'config', token: 'mv_a' });
    expect(loadSettings({ profileFlag: 'a', baseUrlFlag: OTHER }, withUrl, store, noKeyring)).toMatchObject({
      baseUrl: OTHER,
      baseUrlSource: 'flag',
      token: undefined,
    });
  });

  it('removing the current profile goes back to default', () => {
    const store = openConfigStore(env);
    fileLogin(store, { baseUrl: SERVICE, token: 'mv_a' }, 'a');
    store.useProfile('a');
    removeProfile(store, 'a', noKeyring);
    expect(store.read()).toEqual({ profiles: {} });
  });

  it('refuses a current profile in the file that is not a name', async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'config.json'), '{"currentProfile": "../x", "profiles": {}}');
    expect(() => loadSettings({}, env, undefined, noKeyring)).toThrow(ConfigError);
  });
});

describe('tokens in the keyring', () => {
  it('go to the keyring where there is one, and the file holds none', async () => {
    const { open, entries } = mapKeyring();
    const store = openConfigStore(env);
    expect(saveLogin(store, 'a', { baseUrl: SERVICE, token: 'mv_secret', tokenId: 't1' }, { open })).toEqual({ in: 'keyring' });
    expect(entries.get(keyringAccount('a', dir))).toBe('mv_secret');
    expect(await readFile(store.path, 'utf8')).not.toContain('mv_secret');
    expect(store.read().profiles.a).toEqual({ baseUrl: SERVICE, tokenIn: 'keyring', tokenId: 't1' });
    expect(loadSettings({ profileFlag: 'a' }, env, store, open)).toMatchObject({ token: 'mv_secret', tokenSource: 'keyring' });
    expect(loadSettings({ profileFlag: 'a' }, { ...env, MAILVERIFY_TOKEN: 'mv_env' }, store, open)).toMatchObject({
      token: 'mv_env',
      tokenSource: 'environment',
    });
    forgetToken(store, 'a', open);
    expect(entries.size).toBe(0);
    expect(store.read().profiles.a).toEqual({ baseUrl: SERVICE });
  });

  it('--insecure-storage keeps it in the file, and moving it there drops the keyring copy', () => {
    const { open, entries } = mapKeyring();
    const store = openConfigStore(env);
    saveLogin(store, 'a', { baseUrl: SERVICE, token: 'mv_1' }, { open });
    expect(saveLogin(store, 'a', { baseUrl: SERVICE, token: 'mv_2' }, { open, insecure: true })).toEqual({ in: 'file' });
    expect(entries.size).toBe(0);
    expect(store.read().profiles.a).toEqual({ baseUrl: SERVICE, token: 'mv_2' });
  });

  it('a keyring that refuses the token: the file, with the reason', () => {
    const store = openConfigStore(env);
    const refusing: OpenKeyring = () => ({
      keyring: {
        get: () => undefined,
        delete: () => false,
        set: () => {
          throw new Error('the collection is locked');
        },
      },
    });
    expect(saveLogin(store, 'a', { baseUrl: SERVICE, token: 'mv_1' }, { open: refusing })).toEqual({ in: 'file', fallback: 'the collection is locked' });
    expect(store.read().profiles.a).toEqual({ baseUrl: SERVICE, token: 'mv_1' });
  });

  it('a keyring token that cannot be read now: no token, and why', () => {
    const { open } = mapKeyring();
    const store = openConfigStore(env);
    saveLogin(store, 'a', { baseUrl: SERVICE, token: 'mv_1' }, { open });
    expect(loadSettings({ profileFlag: 'a' }, env, store, noKeyring)).toMatchObject({
      token: undefined,
      tokenSource: null,
      tokenUnavailable: 'no Secret Service in this test',
    });
    expect(() => forgetToken(store, 'a', noKeyring)).toThrow(KeyringError);
  });
});

describe('loadSettings', () => {
  it('defaults to the local service with no token', () => {
    expect(loadSettings({}, env)).toMatchObject({ baseUrl: DEFAULT_BASE_URL, baseUrlSource: 'default', token: undefined, tokenSource: null });
  });

  it('takes the base URL from flag, then environment, then file', () => {
    fileLogin(openConfigStore(env), { baseUrl: `${SERVICE}/`, token: 'mv_file' });
    expect(loadSettings({}, env)).toMatchObject({ baseUrl: SERVICE, baseUrlSource: 'config' });
    const withEnv = { ...env, MAILVERIFY_BASE_URL: 'http://127.0.0.2:1' };
    expect(loadSettings({}, withEnv)).toMatchObject({ baseUrl: 'http://127.0.0.2:1', baseUrlSource: 'environment' });
    expect(loadSettings({ baseUrlFlag: 'http://127.0.0.3:1' }, withEnv)).toMatchObject({ baseUrl: 'http://127.0.0.3:1', baseUrlSource: 'flag' });
  });

  it('prefers MAILVERIFY_TOKEN to the stored token', () => {
    fileLogin(openConfigStore(env), { baseUrl: SERVICE, token: 'mv_file' });
    expect(loadSettings({}, env)).toMatchObject({ token: 'mv_file', tokenSource: 'config' });
    expect(loadSettings({}, { ...env, MAILVERIFY_TOKEN: 'mv_env' })).toMatchObject({ token: 'mv_env', tokenSource: 'environment' });
  });

  it('never sends the stored token to another service', () => {
    fileLogin(openConfigStore(env), { baseUrl: SERVICE, token: 'mv_file' });
    expect(loadSettings({ baseUrlFlag: 'http://elsewhere.example' }, env)).toMatchObject({ token: undefined, tokenSource: null });
  });
});
