import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { commandProblem, missing } from '../support/machine.js';
import { startSecretService, type SecretService } from '../support/secret-service.js';
import { startService, type RunningService } from '../support/service.js';

/**
 * Tokens in the OS keyring: the built CLI against a real Secret Service (gnome-keyring on a D-Bus
 * session of the test's own), read back with `secret-tool`; and the file, said in one line, when
 * there is none (the sandbox's environment has no D-Bus session).
 */

const EMAIL = 'keys@example.test';
let service: RunningService;
let secrets: SecretService;
let token: string;
const sandboxes: CliSandbox[] = [];

const noSecretService = missing(
  'test/e2e/cli-keyring.test.ts',
  'a Secret Service (gnome-keyring, dbus-daemon, secret-tool)',
  ['gnome-keyring-daemon', 'dbus-daemon', 'secret-tool'].map(commandProblem).find((problem) => problem !== undefined),
);

async function sandbox(): Promise<CliSandbox> {
  const created = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl });
  sandboxes.push(created);
  return created;
}

/** The keyring entry of a profile, as src/config/keyring.ts names it. */
const entryOf = (cli: CliSandbox, profile = 'default') => ({ service: 'mailverify', username: `${profile}@${resolve(cli.configDir)}` });

describe.skipIf(noSecretService)('the OS keyring', () => {
  beforeAll(async () => {
    [service, secrets] = await Promise.all([startService(), startSecretService()]);
    token = await service.createUser(EMAIL, { credits: 3 });
  });

  afterAll(async () => {
    await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
    await Promise.all([service?.stop(), secrets?.stop()]);
  });

  it('login stores the token in the Secret Service and none in the config file; whoami reads it back; logout removes it', async () => {
    const cli = await sandbox();
    const login = await cli.run(['login', '--with-token'], { stdin: token, env: secrets.env });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toBe(`Logged in to ${service.baseUrl} as ${EMAIL} (profile default); the token is stored in the OS keyring\n`);
    expect(await secrets.lookup(entryOf(cli))).toBe(token);
    const file = await readFile(cli.configPath, 'utf8');
    expect(file).not.toContain(token);
    expect(JSON.parse(file)).toEqual({ profiles: { default: { baseUrl: service.baseUrl, tokenIn: 'keyring' } } });

    const whoami = await cli.run(['whoami'], { env: secrets.env });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toMatch(/token from\s+the OS keyring\n/);
    const json = await cli.run(['--json', 'whoami'], { env: secrets.env });
    expect(JSON.parse(json.stdout)).toMatchObject({ email: EMAIL, profile: 'default', tokenSource: 'keyring' });
    // MAILVERIFY_TOKEN still comes first.
    const fromEnv = await cli.run(['--json', 'whoami'], { env: { ...secrets.env, MAILVERIFY_TOKEN: token } });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ tokenSource: 'environment' });
    const list = await cli.run(['--json', 'profile', 'list'], { env: secrets.env });
    expect(JSON.parse(list.stdout)).toEqual([{ name: 'default', current: true, baseUrl: service.baseUrl, tokenIn: 'keyring' }]);

    const logout = await cli.run(['logout'], { env: secrets.env });
    expect(logout.code, logout.stderr).toBe(0);
    expect(await secrets.lookup(entryOf(cli))).toBeUndefined();
    expect(await cli.config()).toEqual({ profiles: { default: { baseUrl: service.baseUrl } } });
  });

  it('two profiles keep two keyring entries; profile remove deletes its own only', async () => {
    const cli = await sandbox();
    expect((await cli.run(['login', '--with-token'], { stdin: token, env: secrets.env })).code).toBe(0);
    expect((await cli.run(['login', '--profile', 'second', '--with-token'], { stdin: token, env: secrets.env })).code).toBe(0);
    expect(await secrets.lookup(entryOf(cli, 'second'))).toBe(token);
    const removed = await cli.run(['profile', 'remove', 'second'], { env: secrets.env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(await secrets.lookup(entryOf(cli, 'second'))).toBeUndefined();
    expect(await secrets.lookup(entryOf(cli))).toBe(token);
  });

  it('a keyring token while the keyring does not answer: exit 4 saying so, not "not logged in"', async () => {
    const cli = await sandbox();
    expect((await cli.run(['login', '--with-token'], { stdin: token, env: secrets.env })).code).toBe(0);
    const whoami = await cli.run(['whoami']);
    expect(whoami.code).toBe(4);
    expect(whoami.stderr).toContain(`the token for ${service.baseUrl} is in the OS keyring, which does not answer`);
    expect(whoami.stderr).toContain('--insecure-storage');
  });

  it('--insecure-storage keeps the token in the 0600 file even where a keyring answers, without a warning', async () => {
    const cli = await sandbox();
    const login = await cli.run(['login', '--with-token', '--insecure-storage'], { stdin: token, env: secrets.env });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toBe(`Logged in to ${service.baseUrl} as ${EMAIL} (profile default); the token is stored in ${cli.configPath}\n`);
    expect(await cli.config()).toEqual({ profiles: { default: { baseUrl: service.baseUrl, token } } });
    expect(await secrets.lookup(entryOf(cli))).toBeUndefined();
  });

  it('without a Secret Service: the token goes to the file, and one line on stderr says so', async () => {
    const cli = await sandbox();
    const login = await cli.run(['login', '--with-token'], { stdin: token });
    expect(login.code, login.stderr).toBe(0);
    const warnings = login.stderr.split('\n').filter((line) => line.startsWith('mailverify: warning:'));
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^mailverify: warning: no OS keyring answers \\([^\\n]{1,100}\\), so the token is stored in ${cli.configPath}, readable only by you; ` +
            'to fix: start a Secret Service \\(GNOME Keyring, KWallet or KeePassXC\\) in your D-Bus session and log in again, or log in with --insecure-storage',
        ),
      ),
    ]);
    expect(await cli.config()).toEqual({ profiles: { default: { baseUrl: service.baseUrl, token } } });
    // Said even with --quiet, which silences the rest.
    const quiet = await cli.run(['--quiet', 'login', '--with-token'], { stdin: token });
    expect(quiet.stderr.trim().split('\n')).toEqual([expect.stringContaining('warning: no OS keyring')]);
    expect((await cli.run(['whoami'])).code).toBe(0);
  });

  it('no token ever appeared in any captured stdout or stderr', () => {
    const printed = sandboxes.map((cli) => cli.printed()).join('\n');
    expect(printed.length).toBeGreaterThan(0);
    expect(printed).not.toContain(token);
  });
});
