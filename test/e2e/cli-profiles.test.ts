import { mkdir, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { MAIL_DOMAIN, startMailWorld, type MailWorld } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';

/**
 * Profiles: two real services on loopback, one account on each, one CLI config holding both.
 * The sandbox has no D-Bus session, so these tokens are in the file (the keyring has its own test).
 */

const VALID = `someone@${MAIL_DOMAIN}`;
let world: MailWorld;
let serviceA: RunningService;
let serviceB: RunningService;
let tokenA: string;
let tokenB: string;
const sandboxes: CliSandbox[] = [];

beforeAll(async () => {
  world = await startMailWorld({ mailboxes: [VALID] });
  [serviceA, serviceB] = await Promise.all([startService({ engineArgs: world.engineArgs }), startService({ engineArgs: world.engineArgs })]);
  [tokenA, tokenB] = await Promise.all([serviceA.createUser('a@example.test', { credits: 10 }), serviceB.createUser('b@example.test', { credits: 20 })]);
});

afterAll(async () => {
  await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
  await Promise.all([serviceA?.stop(), serviceB?.stop()]);
  await world?.close();
});

/** A CLI config of its own, with no service from the environment: profiles decide. */
async function sandbox(): Promise<CliSandbox> {
  const created = await createCliSandbox({ MAILVERIFY_BASE_URL: '' });
  sandboxes.push(created);
  return created;
}

async function loginBoth(cli: CliSandbox): Promise<void> {
  const a = await cli.run(['login', '--profile', 'a', '--base-url', serviceA.baseUrl, '--with-token', '--insecure-storage'], { stdin: tokenA });
  expect(a.code, a.stderr).toBe(0);
  expect(a.stderr).toContain(`Logged in to ${serviceA.baseUrl} as a@example.test (profile a)`);
  const b = await cli.run(['login', '--base-url', serviceB.baseUrl, '--with-token', '--insecure-storage'], { stdin: tokenB, env: { MAILVERIFY_PROFILE: 'b' } });
  expect(b.code, b.stderr).toBe(0);
}

async function whoami(cli: CliSandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>> {
  const run = await cli.run(['--json', ...args, 'whoami'], { env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

// Each test runs the CLI a dozen times: slow on a shared, loaded machine.
describe('profiles', { timeout: 60_000 }, () => {
  it('verify --profile a and --profile b each reach their own service, with their own token', async () => {
    const cli = await sandbox();
    await loginBoth(cli);
    const viaA = await cli.run(['--json', '--profile', 'a', 'verify', VALID]);
    expect(viaA.code, viaA.stderr).toBe(0);
    expect(JSON.parse(viaA.stdout)).toMatchObject({ email: VALID, result: 'valid' });
    const viaB = await cli.run(['--json', 'verify', '--profile', 'b', VALID]);
    expect(viaB.code, viaB.stderr).toBe(0);
    // Each service charged its own account once.
    expect(await whoami(cli, ['--profile', 'a'])).toMatchObject({
      email: 'a@example.test',
      balance: 9,
      baseUrl: serviceA.baseUrl,
      profile: 'a',
      tokenSource: 'config',
    });
    expect(await whoami(cli, ['--profile', 'b'])).toMatchObject({ email: 'b@example.test', balance: 19, baseUrl: serviceB.baseUrl, profile: 'b' });
  });

  it('profile use switches; MAILVERIFY_PROFILE and --profile choose for one command; list shows which', async () => {
    const cli = await sandbox();
    await loginBoth(cli);
    // Nothing chosen yet: the default profile, which has no login.
    const none = await cli.run(['whoami']);
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('not logged in to http://127.0.0.1:8025');

    expect((await cli.run(['profile', 'use', 'b'])).code).toBe(0);
    expect(await whoami(cli)).toMatchObject({ email: 'b@example.test', profile: 'b' });
    expect(await whoami(cli, [], { MAILVERIFY_PROFILE: 'a' })).toMatchObject({ email: 'a@example.test', profile: 'a' });
    expect(await whoami(cli, ['--profile', 'a'], { MAILVERIFY_PROFILE: 'b' })).toMatchObject({ email: 'a@example.test' });

    const list = await cli.run(['profile', 'list']);
    expect(list.stdout).toMatch(new RegExp(`^  a +${serviceA.baseUrl} +token in the config file$`, 'm'));
    expect(list.stdout).toMatch(new RegExp(`^\\* b +${serviceB.baseUrl} +token in the config file$`, 'm'));
    const json = await cli.run(['--json', 'profile', 'list']);
    expect(JSON.parse(json.stdout)).toEqual([
      { name: 'a', current: false, baseUrl: serviceA.baseUrl, tokenIn: 'file' },
      { name: 'b', current: true, baseUrl: serviceB.baseUrl, tokenIn: 'file' },
    ]);

    const human = await cli.run(['whoami']);
    expect(human.stdout).toMatch(/profile\s+b\n/);
    expect(human.stdout).toContain(`the config file (${cli.configPath})`);

    // Back to default, which exists without a login.
    expect((await cli.run(['profile', 'use', 'default'])).code).toBe(0);
    expect((await cli.run(['whoami'])).code).toBe(4);
    expect(await cli.config()).not.toHaveProperty('currentProfile');
  });

  it('a profile named that does not exist is an error (exit 2), not the default service', async () => {
    const cli = await sandbox();
    await loginBoth(cli);
    const typo = await cli.run(['--profile', 'aa', 'verify', VALID]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('no profile named "aa"');
    expect((await cli.run(['whoami'], { env: { MAILVERIFY_PROFILE: 'nope' } })).code).toBe(2);
    expect((await cli.run(['profile', 'use', 'nope'])).code).toBe(2);
    expect((await cli.run(['--profile', '../x', 'whoami'])).code).toBe(2);
  });

  it('logout keeps the profile and its service; profile remove forgets both, and the current one falls back to default', async () => {
    const cli = await sandbox();
    await loginBoth(cli);
    await cli.run(['profile', 'use', 'a']);
    const logout = await cli.run(['logout']);
    expect(logout.stderr).toContain(`Logged out of ${serviceA.baseUrl} (profile a)`);
    expect(await cli.config()).toMatchObject({ currentProfile: 'a', profiles: { a: { baseUrl: serviceA.baseUrl } } });
    expect(((await cli.config()) as { profiles: { a: object } }).profiles.a).not.toHaveProperty('token');
    // login again goes back to the same service without --base-url.
    expect((await cli.run(['login', '--with-token', '--insecure-storage'], { stdin: tokenA })).code).toBe(0);
    expect(await whoami(cli)).toMatchObject({ email: 'a@example.test', baseUrl: serviceA.baseUrl });

    const removed = await cli.run(['profile', 'remove', 'a']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await cli.config()).toEqual({ profiles: { b: { baseUrl: serviceB.baseUrl, token: tokenB } } });
    expect(JSON.parse((await cli.run(['--json', 'profile', 'list'])).stdout)).toEqual([
      { name: 'default', current: true, baseUrl: null, tokenIn: null },
      { name: 'b', current: false, baseUrl: serviceB.baseUrl, tokenIn: 'file' },
    ]);
  });

  it('a config file written before profiles works as the default profile, and keeps working after a second login', async () => {
    const cli = await sandbox();
    // As the version before profiles wrote it: conf's tab-indented JSON, mode 0600 in a 0700 dir.
    await mkdir(cli.configDir, { recursive: true, mode: 0o700 });
    await writeFile(cli.configPath, `{\n\t"baseUrl": "${serviceA.baseUrl}",\n\t"token": "${tokenA}"\n}`, { mode: 0o600 });
    const verify = await cli.run(['--json', 'verify', VALID]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(await whoami(cli)).toMatchObject({ email: 'a@example.test', profile: 'default', baseUrl: serviceA.baseUrl, tokenSource: 'config' });

    const b = await cli.run(['login', '--profile', 'b', '--base-url', serviceB.baseUrl, '--with-token', '--insecure-storage'], { stdin: tokenB });
    expect(b.code, b.stderr).toBe(0);
    expect(await cli.config()).toEqual({
      profiles: { default: { baseUrl: serviceA.baseUrl, token: tokenA }, b: { baseUrl: serviceB.baseUrl, token: tokenB } },
    });
    expect(await whoami(cli)).toMatchObject({ email: 'a@example.test', profile: 'default' });
  });

  it('doctor names the profile and where its token came from', async () => {
    const cli = await sandbox();
    await loginBoth(cli);
    const doctor = await cli.run([
      '--json',
      '--profile',
      'b',
      'doctor',
      ...world.engineArgs,
      '--allow-private-networks',
      '--mx-host',
      '127.0.0.1',
      '--dnsbl-zone',
      'dnsbl.test',
    ]);
    const token = (JSON.parse(doctor.stdout) as { checks: { check: string; status: string; detail: string }[] }).checks.find(
      (check) => check.check === 'token',
    );
    expect(token, doctor.stderr).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining(`(profile b, token from the config file (${cli.configPath}))`),
    });
  });
});
