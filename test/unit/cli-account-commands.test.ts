import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as completion from '../../src/cli/commands/completion.js';
import * as doctor from '../../src/cli/commands/doctor.js';
import * as help from '../../src/cli/commands/help.js';
import * as login from '../../src/cli/commands/login.js';
import * as logout from '../../src/cli/commands/logout.js';
import * as profileList from '../../src/cli/commands/profile/list.js';
import * as profileRemove from '../../src/cli/commands/profile/remove.js';
import * as profileUse from '../../src/cli/commands/profile/use.js';
import * as whoami from '../../src/cli/commands/whoami.js';
import { CliError, NotAuthenticatedError, UsageError } from '../../src/cli/output/errors.js';
import { TOPICS } from '../../src/cli/help/topics.js';
import { openConfigStore } from '../../src/config/config-store.js';
import { hashApiToken } from '../../src/server/auth/api-tokens.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { serviceForFile } from '../support/command-service.js';

/**
 * `login`, `profile use`, `help` and `completion` run without a process or a service; `whoami`,
 * `logout`, `profile list|remove` and `doctor` against the real service, logged in by a config file.
 */

const fixture = serviceForFile('ann@example.com');
const programDefaults = { baseUrl: undefined, profile: undefined, timeout: undefined, debug: false };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-account-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('login', () => {
  it('reads its flags into options', () => {
    expect(
      login.parse(parseCommandLine(['--profile', 'staging', 'login', '--email', 'me@example.com', '--password-stdin', '--insecure-storage'])),
    ).toMatchObject({
      program: { profile: 'staging' },
      withToken: false,
      email: 'me@example.com',
      passwordStdin: true,
      insecureStorage: true,
    });
  });

  it.each([
    [['--with-token', '--email', 'me@example.com'], '--with-token cannot be combined with --email or --password-stdin'],
    [['--password-stdin'], '--password-stdin needs --email'],
    [[], 'stdin is not a terminal, so there is nobody to ask for a password'],
  ])('refuses %j (exit 2) before it reads stdin', async (argv, message) => {
    const { io } = memoryIo({ MAILVERIFY_CONFIG_DIR: join(dir, 'config') });
    const refused = login.run(login.parse(parseCommandLine(['login', ...argv])), io);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(message);
  });
});

describe('profile use', () => {
  it('refuses a profile that is not there (exit 2)', async () => {
    const { io } = memoryIo({ MAILVERIFY_CONFIG_DIR: join(dir, 'config') });
    await expect(profileUse.run(profileUse.parse(parseCommandLine(['profile', 'use', 'nowhere'])), io)).rejects.toThrow('no profile named "nowhere"');
  });
});

describe('help and completion', () => {
  it('help prints a topic on stdout', async () => {
    const { io, stdout } = memoryIo({});
    await help.run(help.parse(parseCommandLine(['help', 'exit-codes'])), io);
    expect(stdout()).toBe(TOPICS['exit-codes']);
  });

  it('help refuses what is neither a topic nor a command (exit 2)', async () => {
    const { io } = memoryIo({});
    await expect(help.run(help.parse(parseCommandLine(['help', 'bulk', 'nothing'])), io)).rejects.toThrow('no help topic or command "bulk nothing"');
  });

  it('completion takes bash, zsh or fish, and prints a script naming every command', async () => {
    expect(() => completion.parse(parseCommandLine(['completion', 'tcsh']))).toThrow('completion takes bash, zsh, fish; got "tcsh"');
    const { io, stdout } = memoryIo({});
    await completion.run(completion.parse(parseCommandLine(['completion', 'fish'])), io);
    expect(stdout()).toContain('bulk');
    expect(stdout()).toContain('-l fail-on');
  });
});

describe('whoami', () => {
  it('takes the program-wide flags alone', () => {
    expect(whoami.parse(parseCommandLine(['--debug', 'whoami']))).toEqual({ program: { ...programDefaults, debug: true } });
  });

  it('says who the token belongs to and where it came from, never the token', async () => {
    const { login: ann, service } = fixture;
    const { io, stdout, stderr } = memoryIo(ann.env);
    await whoami.run(whoami.parse(parseCommandLine(['whoami'])), io);
    const configPath = join(ann.env.MAILVERIFY_CONFIG_DIR!, 'config.json');
    expect(stdout()).toContain('account    ann@example.com\n');
    expect(stdout()).toContain('balance    100 tokens\n');
    expect(stdout()).toContain(`service    ${service.app.baseUrl}\nprofile    default\ntoken from the config file (${configPath})\n`);
    expect(stdout() + stderr()).not.toContain(ann.token);
    const json = memoryIo(ann.env, { json: true });
    await whoami.run(whoami.parse(parseCommandLine(['whoami'])), json.io);
    expect(JSON.parse(json.stdout())).toMatchObject({ email: 'ann@example.com', balance: 100, baseUrl: service.app.baseUrl, tokenSource: 'config' });
  });

  it('wants a login (exit 4)', async () => {
    const { io } = memoryIo({ MAILVERIFY_CONFIG_DIR: join(dir, 'nobody'), MAILVERIFY_BASE_URL: fixture.service.app.baseUrl });
    await expect(whoami.run(whoami.parse(parseCommandLine(['whoami'])), io)).rejects.toThrow(NotAuthenticatedError);
  });
});

describe('profile list and remove', () => {
  it('lists every profile, the one in use marked, and removes one', async () => {
    const bob = await fixture.service.loggedIn('bob@example.com');
    const config = openConfigStore(bob.env);
    config.saveProfile('staging', { baseUrl: 'http://127.0.0.1:9' });
    expect(profileRemove.parse(parseCommandLine(['profile', 'remove', 'staging']))).toEqual({ program: programDefaults, name: 'staging' });

    const listed = memoryIo(bob.env);
    await profileList.run(profileList.parse(parseCommandLine(['profile', 'list'])), listed.io);
    const url = fixture.service.app.baseUrl;
    expect(listed.stdout()).toBe(
      `* default  ${url.padEnd(url.length + 2)}token in the config file\n  staging  ${'http://127.0.0.1:9'.padEnd(url.length + 2)}not logged in\n`,
    );

    const removed = memoryIo(bob.env);
    await profileRemove.run(profileRemove.parse(parseCommandLine(['profile', 'remove', 'staging'])), removed.io);
    expect(removed.stderr()).toBe('Removed profile staging\n');
    expect(Object.keys(config.read().profiles)).toEqual(['default']);
    const json = memoryIo(bob.env, { json: true });
    await profileList.run(profileList.parse(parseCommandLine(['profile', 'list'])), json.io);
    expect(JSON.parse(json.stdout())).toEqual([{ name: 'default', current: true, baseUrl: url, tokenIn: 'file' }]);

    const again = profileRemove.run(profileRemove.parse(parseCommandLine(['profile', 'remove', 'staging'])), memoryIo(bob.env).io);
    await expect(again).rejects.toThrow(UsageError);
    await expect(again).rejects.toThrow('no profile named "staging"');
  });
});

describe('logout', () => {
  it('revokes a token this CLI created and forgets it, then finds nothing to forget', async () => {
    const { service } = fixture;
    const carl = await service.loggedIn('carl@example.com');
    const created = await service.app.call('POST', '/v1/tokens', { token: carl.token, json: { name: 'login' } });
    const config = openConfigStore(carl.env);
    config.saveProfile('default', { baseUrl: service.app.baseUrl, token: created.body.token, tokenId: created.body.id });
    expect(logout.parse(parseCommandLine(['--profile', 'default', 'logout']))).toEqual({ program: { ...programDefaults, profile: 'default' } });

    const { io, stdout, stderr } = memoryIo(carl.env);
    await logout.run(logout.parse(parseCommandLine(['logout'])), io);
    expect(stdout()).toBe('');
    expect(stderr()).toBe(`Logged out of ${service.app.baseUrl} (profile default); the token was revoked\n`);
    expect(config.read().profiles.default).toEqual({ baseUrl: service.app.baseUrl });
    expect(await service.app.store.tokens.findApiTokenByHash(hashApiToken(created.body.token))).toBeUndefined();
    // A token it did not create (the one the profile held before) is the user's: it keeps working.
    expect((await service.app.call('GET', '/v1/account', { token: carl.token })).status).toBe(200);

    const again = memoryIo(carl.env);
    await logout.run(logout.parse(parseCommandLine(['logout'])), again.io);
    expect(again.stderr()).toBe('Not logged in: no token is stored (profile default)\n');
  });
});

describe('doctor', () => {
  it('reads the engine flags and the mail hosts to try', () => {
    expect(doctor.parse(parseCommandLine(['doctor', '--helo', 'probe.example', '--mx-host', 'a.example', '--mx-host', 'b.example']))).toMatchObject({
      engine: { given: ['--helo'] },
      mxHosts: ['a.example', 'b.example'],
    });
    expect(doctor.parse(parseCommandLine(['doctor'])).mxHosts).toBeUndefined();
  });

  it('as a client of a service: the service answers, the token is accepted, the clocks agree', async () => {
    const { io, stdout } = memoryIo(fixture.login.env, { json: true });
    await doctor.run(doctor.parse(parseCommandLine(['doctor'])), io);
    const report = JSON.parse(stdout()) as { ok: boolean; checks: { check: string; status: string; detail: string }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.map(({ check, status }) => `${check} ${status}`)).toEqual(['service ok', 'token ok', 'clock ok', 'local skipped']);
    expect(report.checks[1]!.detail).toMatch(/^signed in as ann@example\.com, balance \d+ \(profile default, token from the config file/);
  });

  it('says a service that does not answer is a problem (exit 1)', async () => {
    const env = { MAILVERIFY_CONFIG_DIR: join(dir, 'doctor'), MAILVERIFY_BASE_URL: 'http://127.0.0.1:9', MAILVERIFY_RETRY_MAX_ATTEMPTS: '1' };
    const { io, stdout } = memoryIo(env);
    const refused = doctor.run(doctor.parse(parseCommandLine(['doctor'])), io);
    await expect(refused).rejects.toThrow(CliError);
    await expect(refused).rejects.toMatchObject({ message: 'doctor found a problem: service', exitCode: 1 });
    expect(stdout()).toMatch(/^problem +service +http:\/\/127\.0\.0\.1:9 does not answer: /);
  });
});
