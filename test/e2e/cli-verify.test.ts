import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { startScriptedServer, type RecordedRequest, type ScriptedAnswer, type ScriptedServer } from '../support/scripted-http-server.js';
import { MAIL_DOMAIN, MISSING_DOMAIN, startMailWorld, type MailWorld } from '../support/service-app.js';
import { BIN, startService, type RunningService } from '../support/service.js';

/** `mailverify verify` against a service: the built binary, the real service, real DNS and SMTP fixtures. */

const VALID = `alice@${MAIL_DOMAIN}`;
const UNKNOWN_MAILBOX = `bob@${MAIL_DOMAIN}`;
const NO_DOMAIN = `carol@${MISSING_DOMAIN}`;
const CHECK_FIELDS = [
  'format',
  'domainExists',
  'hasMx',
  'domainReachable',
  'smtpStatus',
  'isDisposable',
  'isRole',
  'isBlacklisted',
  'isKnownProvider',
  'isCatchAll',
];

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('verify against the service', () => {
  let world: MailWorld;
  let service: RunningService;
  const tokens: Record<'rich' | 'paced' | 'broke', string> = { rich: '', paced: '', broke: '' };
  const sandboxes: CliSandbox[] = [];

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [VALID] });
    service = await startService({ engineArgs: world.engineArgs });
    [tokens.rich, tokens.paced, tokens.broke] = await Promise.all([
      service.createUser('rich@example.test', { credits: 100 }),
      service.createUser('paced@example.test', { credits: 100, rateLimit: 2 }),
      service.createUser('broke@example.test', { credits: 0 }),
    ]);
  });

  afterAll(async () => {
    await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
    await service?.stop();
    await world?.close();
  });

  /** A CLI logged in (by environment) as one of the users. */
  async function cliAs(user: keyof typeof tokens | null): Promise<CliSandbox> {
    const cli = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: user === null ? '' : tokens[user] });
    sandboxes.push(cli);
    return cli;
  }

  async function balance(cli: CliSandbox): Promise<number> {
    const whoami = await cli.run(['whoami', '--json']);
    return (JSON.parse(whoami.stdout) as { balance: number }).balance;
  }

  it('prints one human line per address, in the order given, with the reason', async () => {
    const cli = await cliAs('rich');
    const verify = await cli.run(['verify', VALID, UNKNOWN_MAILBOX]);
    expect(verify.code, verify.stderr).toBe(0);
    const [first, second, ...rest] = lines(verify.stdout);
    expect(rest).toEqual([]);
    expect(first).toMatch(new RegExp(`^valid\\s+${VALID}  \\S`));
    expect(second).toMatch(new RegExp(`^invalid\\s+${UNKNOWN_MAILBOX}  .*5\\.1\\.1`));
  });

  it('--json prints exactly the interface fields, one object per line', async () => {
    const cli = await cliAs('rich');
    const verify = await cli.run(['--json', 'verify', VALID, UNKNOWN_MAILBOX, NO_DOMAIN]);
    expect(verify.code, verify.stderr).toBe(0);
    const results = lines(verify.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(results.map((result) => [result.email, result.result])).toEqual([
      [VALID, 'valid'],
      [UNKNOWN_MAILBOX, 'invalid'],
      [NO_DOMAIN, 'invalid'],
    ]);
    for (const result of results) {
      // Beside them only the optional ones: notEstablished, and verifiedAt on a verdict the service reused (an earlier test asked these).
      expect(
        Object.keys(result)
          .filter((key) => key !== 'notEstablished' && key !== 'verifiedAt')
          .sort(),
      ).toEqual(['checks', 'email', 'reason', 'reasonCode', 'result']);
      expect(Object.keys(result.checks as object).sort()).toEqual([...CHECK_FIELDS].sort());
    }
  });

  it('--fail-on invalid exits 3 after printing every result', async () => {
    const cli = await cliAs('rich');
    const failing = await cli.run(['verify', '--fail-on', 'invalid', VALID, UNKNOWN_MAILBOX]);
    expect(failing.code).toBe(3);
    expect(lines(failing.stdout)).toHaveLength(2);
    expect((await cli.run(['verify', '--fail-on', 'invalid,unknown', VALID])).code).toBe(0);
  });

  it('reads addresses from stdin with -', async () => {
    const cli = await cliAs('rich');
    const verify = await cli.run(['--json', 'verify', '-'], { stdin: `${VALID}\n\n${UNKNOWN_MAILBOX}\n` });
    expect(verify.code, verify.stderr).toBe(0);
    expect(lines(verify.stdout).map((line) => (JSON.parse(line) as { email: string }).email)).toEqual([VALID, UNKNOWN_MAILBOX]);
  });

  it('charges a repeated address once and still prints it every time', async () => {
    const cli = await cliAs('rich');
    const before = await balance(cli);
    const verify = await cli.run(['verify', VALID, UNKNOWN_MAILBOX, VALID]);
    expect(lines(verify.stdout).map((line) => line.split(/\s+/)[1])).toEqual([VALID, UNKNOWN_MAILBOX, VALID]);
    expect(await balance(cli)).toBe(before - 2);
  });

  it('verifies several addresses concurrently without exceeding the rate limit', async () => {
    const cli = await cliAs('paced');
    const addresses = ['a', 'b', 'c', 'd', 'e'].map((local) => `${local}@${MAIL_DOMAIN}`);
    const verify = await cli.run(['--debug', 'verify', ...addresses]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(lines(verify.stdout)).toHaveLength(5);
    expect(verify.stderr).toMatch(/POST \S+\/v1\/verify .*→ 200/);
    expect(verify.stderr).not.toContain('→ 429');
  });

  it('without a token exits 4 with the login hint', async () => {
    const cli = await cliAs(null);
    const verify = await cli.run(['verify', VALID]);
    expect(verify.code).toBe(4);
    expect(verify.stderr).toContain('run `mailverify login`');
    expect(verify.stdout).toBe('');
  });

  it('with a balance of 0 exits 5', async () => {
    const cli = await cliAs('broke');
    const verify = await cli.run(['verify', VALID]);
    expect(verify.code).toBe(5);
    expect(verify.stderr).toMatch(/insufficient tokens: balance 0, 1 required/);
  });

  it('never printed a token', () => {
    const printed = sandboxes.map((cli) => cli.printed()).join('\n');
    for (const token of Object.values(tokens)) expect(printed).not.toContain(token);
  });
});

describe('verify without --local', () => {
  let cli: CliSandbox;
  beforeAll(async () => {
    // Nothing listens there: a usage error must come before any request.
    cli = await createCliSandbox({ MAILVERIFY_TOKEN: 'mv_unused', MAILVERIFY_BASE_URL: 'http://127.0.0.1:9' });
  });
  afterAll(() => cli?.close());

  it('refuses engine flags (exit 2, one line) instead of silently ignoring them', async () => {
    const one = await cli.run(['verify', '--dns-server', '127.0.0.1:53', 'a@example.org']);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/^mailverify: --dns-server needs --local \(.*\)\n$/);
    const two = await cli.run(['verify', '--smtp-port', '2525', '--no-web-check', 'a@example.org']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('--smtp-port, --no-web-check need --local');
  });

  it('ignores the engine settings of the environment, which may be meant for --local', async () => {
    const verify = await cli.run(['verify', 'a@example.org'], { env: { MAILVERIFY_DNS_SERVERS: '127.0.0.1:53', MAILVERIFY_RETRY_MAX_ATTEMPTS: '1' } });
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain('cannot reach http://127.0.0.1:9');
  });
});

describe('verify against a service that rate-limits', () => {
  const RESULT = { email: 'someone@example.org', result: 'valid', checks: Object.fromEntries(CHECK_FIELDS.map((field) => [field, false])), reason: 'scripted' };
  const LIMITED: ScriptedAnswer = {
    status: 429,
    headers: { 'retry-after': '1' },
    json: { type: 'about:blank', title: 'Too Many Requests', status: 429, code: 'rate_limited', detail: 'Slow down.' },
  };
  let server: ScriptedServer | undefined;
  let cli: CliSandbox;

  beforeAll(async () => {
    cli = await createCliSandbox({ MAILVERIFY_TOKEN: 'mv_scripted' });
  });
  afterAll(async () => {
    await server?.close();
    await cli?.close();
  });

  /** A fresh scripted service: a list of answers (the last one repeats), or a function of the request. */
  async function serve(answers: ScriptedAnswer[] | ((request: RecordedRequest) => ScriptedAnswer)) {
    await server?.close();
    server = await startScriptedServer(typeof answers === 'function' ? answers : (_request, index) => answers[Math.min(index, answers.length - 1)]!);
    return server;
  }

  it('succeeds when 429 comes twice and then 200, repeating the request with the same Idempotency-Key', async () => {
    const scripted = await serve([LIMITED, LIMITED, { status: 200, json: RESULT }]);
    const verify = await cli.run(['verify', RESULT.email], { env: { MAILVERIFY_BASE_URL: scripted.baseUrl } });
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^valid\s+someone@example\.org/);
    expect(scripted.requests).toHaveLength(3);
    const keys = new Set(scripted.requests.map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toEqual(expect.any(String));
  });

  it('exits 6 within the bounded time when every answer is 429', async () => {
    const scripted = await serve([LIMITED]);
    const started = Date.now();
    // Attempts enough for nine waits: only the time budget can end it after three requests (at 0,
    // 1 and 2 s, each 429 asking for a 1 s wait; a fourth would start past the 2.5 s budget).
    const env = { MAILVERIFY_BASE_URL: scripted.baseUrl, MAILVERIFY_RETRY_MAX_ELAPSED_MS: '2500', MAILVERIFY_RETRY_MAX_ATTEMPTS: '10' };
    const verify = await cli.run(['verify', RESULT.email], { env });
    expect(verify.code).toBe(6);
    expect(verify.stderr).toMatch(/429.*rate_limited/);
    expect(scripted.requests).toHaveLength(3);
    // Generous upper bound: the budget is 2.5 s; the point is that it does not hang.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('ends quietly with exit 0 when the reader closes stdout early (`| head -1`)', async () => {
    let readerGone!: () => void;
    const heldUntil = new Promise<void>((resolve) => (readerGone = resolve));
    const account = { email: 'a@example.org', balance: 10, rateLimit: { limit: 100, windowSeconds: 1 } };
    // The first address is answered at once; the second only after the reader has gone, so its line meets a closed pipe.
    const scripted = await serve((request) => {
      if (request.url === '/v1/account') return { status: 200, json: account };
      const { email } = JSON.parse(request.body) as { email: string };
      return { status: 200, json: { ...RESULT, email }, heldUntil: email === 'second@example.org' ? heldUntil : undefined };
    });
    const env = { ...process.env, NO_COLOR: '1', MAILVERIFY_TOKEN: 'mv_scripted', MAILVERIFY_BASE_URL: scripted.baseUrl, MAILVERIFY_CONFIG_DIR: cli.configDir };
    const child = spawn(process.execPath, [BIN, 'verify', 'first@example.org', 'second@example.org'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

    const firstLine = await new Promise<string>((resolve) => child.stdout.setEncoding('utf8').once('data', resolve));
    expect(firstLine).toMatch(/first@example\.org/);
    child.stdout.destroy();
    await new Promise((resolve) => child.stdout.once('close', resolve));
    readerGone();

    expect(await exited, stderr).toBe(0);
    expect(stderr).toBe('');
  });
});
