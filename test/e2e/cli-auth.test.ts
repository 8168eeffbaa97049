import { spawn, spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { BIN, startService, type RunningService } from '../support/service.js';

/** login / whoami / logout: the built binary against the real service, each test with a fresh config dir. */

const EMAIL = 'alice@example.test';
const PASSWORD = 'correct horse battery staple';
const LOGIN_HINT = 'mailverify login';

let service: RunningService;
let adminToken: string;
const sandboxes: CliSandbox[] = [];
/** Every secret seen in a test; none may ever be printed. */
const secrets = new Set<string>([PASSWORD]);

beforeAll(async () => {
  service = await startService();
  adminToken = await service.createUser(EMAIL, { credits: 7, password: PASSWORD });
  secrets.add(adminToken);
});

afterAll(async () => {
  await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
  await service?.stop();
});

async function sandbox(): Promise<CliSandbox> {
  const created = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl });
  sandboxes.push(created);
  return created;
}

/**
 * Runs the CLI on a real terminal (a pty from util-linux `script`), typing each answer only once
 * its prompt has appeared, as a person would; resolves with everything the terminal showed.
 */
function runInTerminal(cli: CliSandbox, args: string[], answers: [prompt: string, typed: string][]): Promise<{ screen: string; code: number | null }> {
  const command = [process.execPath, BIN, ...args].map((part) => `'${part}'`).join(' ');
  // Not in CI, whatever runs the tests: CI means nobody types, and the CLI then never asks.
  const env = {
    ...process.env,
    CI: '',
    NO_COLOR: '1',
    MAILVERIFY_TOKEN: '',
    MAILVERIFY_BASE_URL: service.baseUrl,
    MAILVERIFY_CONFIG_DIR: cli.configDir,
    DBUS_SESSION_BUS_ADDRESS: '',
  };
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    const [next] = answers;
    if (next !== undefined && screen.includes(next[0])) {
      answers.shift();
      child.stdin.write(`${next[1]}\r`);
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ screen, code })));
}

const hasScript = spawnSync('script', ['--version']).status === 0;

async function storedToken(cli: CliSandbox): Promise<string | undefined> {
  const profiles = (await cli.config())?.profiles as Record<string, { token?: string }> | undefined;
  const token = profiles?.default?.token;
  if (typeof token === 'string') secrets.add(token);
  return token as string | undefined;
}

describe('login --with-token, whoami, logout', () => {
  it('stores a token read from stdin, after checking it, in a 0600 file in a 0700 directory', async () => {
    const cli = await sandbox();
    const login = await cli.run(['login', '--with-token'], { stdin: `${adminToken}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`Logged in to ${service.baseUrl} as ${EMAIL}`);
    expect(login.stdout).toBe('');
    expect(await storedToken(cli)).toBe(adminToken);
    expect((await stat(cli.configPath)).mode & 0o777).toBe(0o600);
    expect((await stat(cli.configDir)).mode & 0o777).toBe(0o700);
  });

  it('whoami shows account, balance, rate limit, service and token source, as text and as JSON', async () => {
    const cli = await sandbox();
    await cli.run(['login', '--with-token'], { stdin: adminToken });
    const human = await cli.run(['whoami']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`account\\s+${EMAIL}`));
    expect(human.stdout).toMatch(/balance\s+7 tokens/);
    expect(human.stdout).toMatch(/rate limit\s+20 requests per second\n/);
    // The service charges unknowns (no --refund-unknown), and says so.
    expect(human.stdout).toMatch(/unknowns\s+charged like any result\n/);
    expect(human.stdout).toContain(service.baseUrl);
    expect(human.stdout).toContain(`the config file (${cli.configPath})`);
    expect(human.stdout).toMatch(/scopes\s+verify, bulk, results, account, evidence\n/);
    expect(human.stdout).toMatch(/expires\s+never\n/);

    const json = await cli.run(['whoami', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      email: EMAIL,
      balance: 7,
      rateLimit: { limit: expect.any(Number), windowSeconds: expect.any(Number) },
      refundUnknown: false,
      // The token of `admin token create`: every scope, never expiring.
      token: { kind: 'api', id: expect.any(String), name: 'admin', scopes: ['verify', 'bulk', 'results', 'account', 'evidence'], expiresAt: null, test: false },
      baseUrl: service.baseUrl,
      profile: 'default',
      tokenSource: 'config',
    });
    const fromEnv = await cli.run(['whoami', '--json'], { env: { MAILVERIFY_TOKEN: adminToken } });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ tokenSource: 'environment' });
  });

  it('counts in words that agree: 1 token, 1 request per second', async () => {
    const token = await service.createUser('single@example.test', { credits: 1, rateLimit: 1 });
    secrets.add(token);
    const cli = await sandbox();
    const whoami = await cli.run(['whoami'], { env: { MAILVERIFY_TOKEN: token } });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toMatch(/balance\s+1 token\n/);
    expect(whoami.stdout).toMatch(/rate limit\s+1 request per second\n/);
  });

  it('a refused MAILVERIFY_TOKEN: the hint names the variable; under --json the error is one JSON object on stderr', async () => {
    const cli = await sandbox();
    const env = { MAILVERIFY_TOKEN: 'mv_not-a-real-token' };
    const human = await cli.run(['whoami'], { env });
    expect(human.code).toBe(4);
    expect(human.stderr).toContain('the service refused the token in MAILVERIFY_TOKEN');
    expect(human.stderr).not.toContain('run `mailverify login`');

    const json = await cli.run(['--json', 'whoami'], { env });
    expect(json.code).toBe(4);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'unauthenticated', message: expect.stringContaining('401'), exitCode: 4, hint: expect.stringContaining('MAILVERIFY_TOKEN') },
    });
    const usage = await cli.run(['whoami', '--json', '--no-such-flag']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(JSON.parse(usage.stderr)).toMatchObject({ error: { code: 'usage', message: "unknown option '--no-such-flag'", exitCode: 2 } });
  });

  it('logout forgets a token it did not create without revoking it, and whoami then exits 4 with the hint', async () => {
    const cli = await sandbox();
    await cli.run(['login', '--with-token'], { stdin: adminToken });
    const logout = await cli.run(['logout']);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain(`Logged out of ${service.baseUrl}`);
    expect(await storedToken(cli)).toBeUndefined();

    const whoami = await cli.run(['whoami']);
    expect(whoami.code).toBe(4);
    expect(whoami.stderr).toContain(LOGIN_HINT);
    // Still valid: it was handed to us, not made by us.
    expect((await cli.run(['whoami'], { env: { MAILVERIFY_TOKEN: adminToken } })).code).toBe(0);
  });

  it('logout warns when MAILVERIFY_TOKEN still supplies a token', async () => {
    const cli = await sandbox();
    const logout = await cli.run(['logout'], { env: { MAILVERIFY_TOKEN: adminToken } });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toMatch(/warning: MAILVERIFY_TOKEN is still set/);
  });
});

describe('login --email --password-stdin', () => {
  it('creates an mv_ token named for this machine, stores it, and logout revokes it', async () => {
    const cli = await sandbox();
    const login = await cli.run(['login', '--email', EMAIL, '--password-stdin'], { stdin: `${PASSWORD}\n` });
    expect(login.code, login.stderr).toBe(0);
    const token = await storedToken(cli);
    expect(token).toMatch(/^mv_[A-Za-z0-9]+$/);
    expect(token).not.toBe(adminToken);
    expect(await cli.config()).toMatchObject({ profiles: { default: { baseUrl: service.baseUrl, tokenId: expect.any(String) } } });

    const listed = await fetch(`${service.baseUrl}/v1/tokens`, { headers: { authorization: `Bearer ${token}` } });
    const { tokens } = (await listed.json()) as { tokens: { name: string }[] };
    expect(tokens.map((each) => each.name)).toContain(`mailverify-${hostname()}`);

    const logout = await cli.run(['logout']);
    expect(logout.stderr).toContain('the token was revoked');
    const revoked = await cli.run(['whoami'], { env: { MAILVERIFY_TOKEN: token } });
    expect(revoked.code).toBe(4);
    expect(revoked.stderr).toContain(LOGIN_HINT);
  });

  it('login again on the profile revokes the token it held, once the new one is stored', async () => {
    const cli = await sandbox();
    const login = () => cli.run(['login', '--email', EMAIL, '--password-stdin'], { stdin: `${PASSWORD}\n` });
    expect((await login()).code).toBe(0);
    const first = await storedToken(cli);
    const again = await login();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('The token this profile held before was revoked');
    const second = await storedToken(cli);
    expect(second).toMatch(/^mv_/);
    expect(second).not.toBe(first);
    expect((await cli.run(['whoami'], { env: { MAILVERIFY_TOKEN: first } })).code).toBe(4);
    expect((await cli.run(['whoami'])).code).toBe(0);

    // A login that fails leaves the stored token as it was, and working.
    expect((await cli.run(['login', '--email', EMAIL, '--password-stdin'], { stdin: 'not the password\n' })).code).toBe(4);
    expect(await storedToken(cli)).toBe(second);
    expect((await cli.run(['whoami'])).code).toBe(0);
  });

  it('logout of a service that does not answer forgets the token and says in one line that it is not revoked', async () => {
    const elsewhere = await startService();
    const cli = await sandbox();
    const env = { MAILVERIFY_BASE_URL: elsewhere.baseUrl };
    await elsewhere.createUser(EMAIL, { credits: 0, password: PASSWORD });
    expect((await cli.run(['login', '--email', EMAIL, '--password-stdin'], { stdin: `${PASSWORD}\n`, env })).code).toBe(0);
    expect(await storedToken(cli)).toMatch(/^mv_/);
    await elsewhere.stop();

    const logout = await cli.run(['logout'], { env });
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr.split('\n').filter((line) => line.includes('could not revoke'))).toHaveLength(1);
    expect(logout.stderr).not.toContain('the token was revoked');
    expect(await storedToken(cli)).toBeUndefined();
  });

  it.skipIf(!hasScript)('on a terminal asks for email and password, never echoing the password', async () => {
    const cli = await sandbox();
    const { screen, code } = await runInTerminal(
      cli,
      ['login'],
      [
        ['Email: ', EMAIL],
        ['Password: ', PASSWORD],
      ],
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain(EMAIL);
    expect(screen).toContain(`Logged in to ${service.baseUrl} as ${EMAIL}`);
    expect(screen).not.toContain(PASSWORD);
    expect(await storedToken(cli)).toMatch(/^mv_/);
  });

  it('refuses a wrong password with exit 4 and stores nothing', async () => {
    const cli = await sandbox();
    const login = await cli.run(['login', '--email', EMAIL, '--password-stdin'], { stdin: 'not the password\n' });
    expect(login.code).toBe(4);
    expect(login.stderr).toContain('wrong email or password');
    expect(await cli.config()).toBeUndefined();
  });

  it('does not store a token the service rejects', async () => {
    const cli = await sandbox();
    const login = await cli.run(['login', '--with-token'], { stdin: 'mv_notarealtoken000000000000000000' });
    expect(login.code).toBe(4);
    expect(await storedToken(cli)).toBeUndefined();
  });

  it('takes no secret from argv and needs a terminal to ask for one (exit 2)', async () => {
    const cli = await sandbox();
    expect((await cli.run(['login', '--email', EMAIL, '--password', PASSWORD])).code).toBe(2);
    // No flag of any command takes a token: not login's, not a global one.
    for (const args of [
      ['login', '--token', adminToken],
      ['--token', adminToken, 'whoami'],
    ]) {
      const refused = await cli.run(args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/unknown option '--token'/);
    }
    expect(await storedToken(cli)).toBeUndefined();
    const noTerminal = await cli.run(['login']);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stderr).toContain('--with-token');
    expect((await cli.run(['login', '--with-token', '--email', EMAIL])).code).toBe(2);
  });
});

describe('secrets', () => {
  it('--debug traces requests with Authorization redacted', async () => {
    const cli = await sandbox();
    const traced = await cli.run(['--debug', 'whoami'], { env: { MAILVERIFY_TOKEN: adminToken } });
    expect(traced.code).toBe(0);
    expect(traced.stderr).toMatch(new RegExp(`GET ${service.baseUrl}/v1/account .*authorization: Bearer \\[redacted\\].* → 200 in \\d+ ms`));
  });

  it('no token ever appeared in any captured stdout or stderr', async () => {
    const printed = sandboxes.map((cli) => cli.printed()).join('\n');
    expect(printed.length).toBeGreaterThan(0);
    expect(secrets.size).toBeGreaterThanOrEqual(3);
    for (const secret of secrets) expect(printed).not.toContain(secret);
  });
});
