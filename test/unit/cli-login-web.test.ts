import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceLoginError, NetworkError } from '../../src/client/errors.js';
import type { DevicePoll } from '../../src/client/api-client.js';
import { cliErrorFor } from '../../src/cli/output/client-errors.js';
import * as login from '../../src/cli/commands/login.js';
import { pollForToken, shouldOpenBrowser } from '../../src/cli/commands/support/device-login.js';
import { NotAuthenticatedError, UsageError } from '../../src/cli/output/errors.js';
import { createIo } from '../../src/cli/output/io.js';
import { DEVICE_CODE_GRANT_TYPE } from '../../src/wire/contract.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { startScriptedServer } from '../support/scripted-http-server.js';

/** `login --web` (the device grant) without a service: its flags, when it opens a browser, how it polls, and a whole run against a scripted one. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-login-web-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const START = {
  device_code: 'the-device-secret',
  user_code: 'BCDF-GHJK',
  verification_uri: 'http://127.0.0.1:1/device',
  verification_uri_complete: 'http://127.0.0.1:1/device?code=BCDF-GHJK',
  interval: 2,
  expires_in: 600,
};
const TOKEN = { access_token: `mv_${'a'.repeat(64)}`, token_type: 'Bearer' as const, scope: 'verify bulk results account', token_id: 'tok-1' };

describe('login --web: flags', () => {
  it('reads --web and --no-browser', () => {
    expect(login.parse(parseCommandLine(['login', '--web', '--no-browser']))).toMatchObject({ web: true, browser: false, withToken: false });
    expect(login.parse(parseCommandLine(['login']))).toMatchObject({ web: false, browser: true });
  });

  it.each([
    [['--web', '--with-token'], '--web cannot be combined with --with-token, --email or --password-stdin'],
    [['--web', '--email', 'me@example.com'], '--web cannot be combined'],
    [['--no-browser'], '--no-browser goes with --web'],
  ])('refuses %j (exit 2) before asking the service anything', async (argv, message) => {
    const { io } = memoryIo({ MAILVERIFY_CONFIG_DIR: join(dir, 'refused'), MAILVERIFY_BASE_URL: 'http://127.0.0.1:1' });
    const refused = login.run(login.parse(parseCommandLine(['login', ...argv])), io);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(message);
  });
});

describe('login --web: the browser', () => {
  const terminal = () => Object.assign(new PassThrough(), { isTTY: true });
  const ioWith = (env: NodeJS.ProcessEnv, tty = true) =>
    createIo(
      {},
      env,
      tty ? { stdin: terminal(), stdout: terminal(), stderr: terminal() } : { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() },
    );

  it('opens only for someone at a terminal: never in CI, without a TTY, with --no-input or --no-browser', () => {
    expect(shouldOpenBrowser(ioWith({}), true)).toBe(true);
    expect(shouldOpenBrowser(ioWith({}), false)).toBe(false);
    expect(shouldOpenBrowser(ioWith({ CI: 'true' }), true)).toBe(false);
    expect(shouldOpenBrowser(ioWith({}, false), true)).toBe(false);
    expect(shouldOpenBrowser(createIo({ input: false }, {}, { stdin: terminal(), stdout: terminal(), stderr: terminal() }), true)).toBe(false);
  });
});

describe('login --web: polling', () => {
  /** A client answering the given polls in turn, and a sleep that only records how long it was asked to wait. */
  function scripted(answers: (DevicePoll | Error)[]) {
    const slept: number[] = [];
    let clock = 0;
    const client = {
      pollDeviceLogin: async (deviceCode: string) => {
        expect(deviceCode).toBe(START.device_code);
        const next = answers.shift();
        if (next === undefined) throw new Error('polled once too often');
        if (next instanceof Error) throw next;
        return next;
      },
    };
    const sleep = async (ms: number) => {
      slept.push(ms);
      clock += ms;
    };
    return { client, sleep, slept, now: () => clock };
  }

  it('waits the interval before each poll, 5 s longer after each slow_down (or what the service says, when longer)', async () => {
    const { client, sleep, slept, now } = scripted([
      { kind: 'authorization_pending' },
      { kind: 'slow_down' },
      { kind: 'slow_down', interval: 20 },
      { kind: 'token', token: TOKEN },
    ]);
    await expect(pollForToken(client, START, sleep, now)).resolves.toEqual(TOKEN);
    expect(slept).toEqual([2_000, 2_000, 7_000, 20_000]);
  });

  it('rides out a few polls without an answer, but not many in a row', async () => {
    const cut = () => new NetworkError('cannot reach it', 'POST', 'http://127.0.0.1:1/v1/auth/device/token');
    const { client, sleep, now } = scripted([cut(), cut(), cut(), { kind: 'token', token: TOKEN }]);
    await expect(pollForToken(client, START, sleep, now)).resolves.toEqual(TOKEN);
    const many = scripted([cut(), cut(), cut(), cut()]);
    await expect(pollForToken(many.client, START, many.sleep, many.now)).rejects.toThrow(NetworkError);
  });

  it('stops at access_denied, expired_token or invalid_grant: exit code 4, with a hint to start again', async () => {
    const denied = new DeviceLoginError({
      status: 400,
      method: 'POST',
      url: 'http://127.0.0.1:1/v1/auth/device/token',
      problem: { error: 'access_denied', error_description: 'The request was denied on the approval page.' },
    });
    const { client, sleep, now } = scripted([{ kind: 'authorization_pending' }, denied]);
    await expect(pollForToken(client, START, sleep, now)).rejects.toBe(denied);
    const reported = cliErrorFor(denied, {})!;
    expect(reported.exitCode).toBe(4);
    expect(reported.message).toBe('the browser login did not complete (access_denied): The request was denied on the approval page.');
    expect(reported.hint).toBe('run `mailverify login --web` again');
  });

  it('gives up when the codes expire without an answer that ends it (exit code 4)', async () => {
    const { client, sleep, now } = scripted(Array.from({ length: 300 }, (): DevicePoll => ({ kind: 'authorization_pending' })));
    const gaveUp = pollForToken(client, { ...START, expires_in: 10 }, sleep, now);
    await expect(gaveUp).rejects.toThrow(NotAuthenticatedError);
    await expect(gaveUp).rejects.toThrow('the code expired before the login was approved');
  });
});

describe('login --web: a run', () => {
  it('shows the code and the page, polls until approved, and stores the token (never printed) as login does', async () => {
    const server = await startScriptedServer((request, index) => {
      if (request.url === '/v1/auth/device') return { status: 200, json: { ...START, interval: 1 } };
      if (request.url === '/v1/auth/device/token') {
        return index === 1 ? { status: 400, json: { error: 'authorization_pending', error_description: 'not yet' } } : { status: 200, json: TOKEN };
      }
      if (request.url === '/v1/account') return { status: 200, json: { email: 'ann@example.com', balance: 3, rateLimit: { limit: 20, windowSeconds: 1 } } };
      return { status: 404, json: {} };
    });
    try {
      const configDir = join(dir, 'run');
      const { io, stdout, stderr } = memoryIo({ MAILVERIFY_CONFIG_DIR: configDir, MAILVERIFY_BASE_URL: server.baseUrl });
      await login.run(login.parse(parseCommandLine(['login', '--web', '--insecure-storage'])), io);

      expect(server.requests.map(({ method, url }) => `${method} ${url}`)).toEqual([
        'POST /v1/auth/device',
        'POST /v1/auth/device/token',
        'POST /v1/auth/device/token',
        'GET /v1/account',
      ]);
      expect(JSON.parse(server.requests[0]!.body)).toEqual({ client_name: `mailverify-${hostname()}` });
      expect(JSON.parse(server.requests[1]!.body)).toEqual({ grant_type: DEVICE_CODE_GRANT_TYPE, device_code: START.device_code });
      // Anonymous until the token comes: the device's secret is the only credential of a poll.
      expect(server.requests[1]!.headers.authorization).toBeUndefined();
      expect(server.requests[3]!.headers.authorization).toBe(`Bearer ${TOKEN.access_token}`);

      expect(stdout()).toBe('');
      expect(stderr()).toContain('First copy your one-time code: BCDF-GHJK');
      expect(stderr()).toContain(`Then approve it at ${START.verification_uri_complete}, signed in to the dashboard.`);
      expect(stderr()).toContain(`Logged in to ${server.baseUrl} as ann@example.com (profile default)`);
      expect(stderr()).not.toContain(TOKEN.access_token);
      const config = JSON.parse(await readFile(join(configDir, 'config.json'), 'utf8'));
      expect(config.profiles.default).toMatchObject({ baseUrl: server.baseUrl, token: TOKEN.access_token, tokenId: TOKEN.token_id });
    } finally {
      await server.close();
    }
  });
});
