import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { commandProblem, missing } from '../support/machine.js';
import { BIN } from '../support/service.js';

/**
 * The update notice: the built CLI on a real terminal (util-linux `script`), its check against a
 * registry of the test's own on loopback that has a newer `latest`, or that never answers.
 */

const NEWER = '99.0.0';
const NOTICE = `mailverify ${NEWER} is available (this is ${VERSION})`;

interface FakeRegistry {
  url: string;
  /** The paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

async function startRegistry(answer: boolean): Promise<FakeRegistry> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (!answer) return; // Holds the request open: the check's own timeout has to end it.
    if (request.url !== '/mailverify') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'mailverify', 'dist-tags': { latest: NEWER } }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let registry: FakeRegistry;
let silent: FakeRegistry;
const sandboxes: CliSandbox[] = [];

beforeAll(async () => {
  [registry, silent] = await Promise.all([startRegistry(true), startRegistry(false)]);
});

afterAll(async () => {
  await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
  await Promise.all([registry?.close(), silent?.close()]);
});

async function sandbox(): Promise<CliSandbox> {
  const created = await createCliSandbox();
  sandboxes.push(created);
  return created;
}

/** The sandbox's own OS cache dir (XDG_CACHE_HOME), where the update check keeps its state. */
const cacheHome = (cli: CliSandbox) => join(cli.configDir, '..', 'cache');
const stateFileOf = (cli: CliSandbox) => join(cacheHome(cli), 'mailverify', 'update-check.json');

/** The environment of a person at a terminal, not in CI, with the check on (vitest.config.ts turns it off for every other test). */
const personEnv = (cli: CliSandbox, registryUrl: string): NodeJS.ProcessEnv => ({
  ...process.env,
  CI: '',
  NO_COLOR: '1',
  NO_UPDATE_NOTIFIER: '',
  MAILVERIFY_NO_UPDATE_CHECK: '',
  MAILVERIFY_UPDATE_REGISTRY: registryUrl,
  MAILVERIFY_CONFIG_DIR: cli.configDir,
  XDG_CACHE_HOME: cacheHome(cli),
  MAILVERIFY_TOKEN: '',
  DBUS_SESSION_BUS_ADDRESS: '',
});

/** Runs the CLI on a pseudo-terminal; resolves with what the terminal showed, the exit code and how long it took. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv): Promise<{ screen: string; code: number | null; ms: number }> {
  const command = [process.execPath, BIN, ...args].map((part) => `'${part}'`).join(' ');
  const started = performance.now();
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ screen, code, ms: performance.now() - started })));
}

async function state(cli: CliSandbox): Promise<Record<string, unknown> | undefined> {
  try {
    return JSON.parse(await readFile(stateFileOf(cli), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Waits for the background check to have ended (it writes answeredAt or failedAt as it ends). */
async function checkEnded(cli: CliSandbox, field: 'answeredAt' | 'failedAt'): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const current = await state(cli);
    if (current?.[field] !== undefined) return current;
    if (Date.now() > deadline) throw new Error(`no ${field} in the update state: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const QUICK = ['profile', 'list'];

/** The CLI process's own times (ms), from test/support/exit-timing.mjs. */
interface Timing {
  total: number;
  afterOutput: number;
}
const PRELOAD = fileURLToPath(new URL('../support/exit-timing.mjs', import.meta.url));
const timingFile = (cli: CliSandbox) => join(cli.configDir, '..', 'timing.json');
const timing = (cli: CliSandbox): NodeJS.ProcessEnv => ({ NODE_OPTIONS: `--import ${PRELOAD}`, MAILVERIFY_TEST_TIMING: timingFile(cli) });
const readTiming = async (cli: CliSandbox) => JSON.parse(await readFile(timingFile(cli), 'utf8')) as Timing;
async function timed(cli: CliSandbox, env: NodeJS.ProcessEnv): Promise<Timing> {
  const run = await onTerminal(QUICK, { ...env, ...timing(cli) });
  expect(run.code, run.screen).toBe(0);
  return readTiming(cli);
}

describe.skipIf(missing('test/e2e/cli-update-notice.test.ts', 'script (util-linux, for a terminal)', commandProblem('script')))('the update notice', () => {
  it('on a terminal: a background check, then the notice at the next run, once a day, the registry asked once', async () => {
    const cli = await sandbox();
    const env = personEnv(cli, registry.url);
    const before = registry.requests.length;
    const first = await onTerminal(QUICK, env);
    expect(first.code, first.screen).toBe(0);
    expect(first.screen).not.toContain('is available');
    expect(await checkEnded(cli, 'answeredAt')).toMatchObject({ latest: NEWER });
    expect(registry.requests.slice(before)).toEqual(['/mailverify']);

    const second = await onTerminal(QUICK, env);
    expect(second.code, second.screen).toBe(0);
    expect(second.screen).toContain(`${NOTICE}: npm install -g mailverify@latest`);
    const third = await onTerminal(QUICK, env);
    expect(third.screen).not.toContain('is available');
    expect(registry.requests.slice(before)).toEqual(['/mailverify']);
  });

  it('for a user who never logged in too: the state goes to the OS cache dir, made then; no config dir is made', async () => {
    const cli = await sandbox();
    const env = personEnv(cli, registry.url);
    const first = await onTerminal(['help', 'exit-codes'], env);
    expect(first.code, first.screen).toBe(0);
    expect(await checkEnded(cli, 'answeredAt')).toMatchObject({ latest: NEWER });
    expect((await stat(join(cacheHome(cli), 'mailverify'))).mode & 0o777).toBe(0o700);
    const second = await onTerminal(['help', 'exit-codes'], env);
    expect(second.screen).toContain(NOTICE);
    expect(existsSync(cli.configDir)).toBe(false);
  });

  it('never in CI, with --json or --quiet, with NO_UPDATE_NOTIFIER or MAILVERIFY_NO_UPDATE_CHECK, or off a terminal', async () => {
    const cli = await sandbox();
    const env = personEnv(cli, registry.url);
    const variants: [string, string[], NodeJS.ProcessEnv][] = [
      ['CI', QUICK, { CI: 'true' }],
      ['--json', ['--json', ...QUICK], {}],
      ['--quiet', ['--quiet', ...QUICK], {}],
      ['NO_UPDATE_NOTIFIER', QUICK, { NO_UPDATE_NOTIFIER: '1' }],
      ['MAILVERIFY_NO_UPDATE_CHECK', QUICK, { MAILVERIFY_NO_UPDATE_CHECK: '1' }],
    ];
    const notOnTerminal = () =>
      cli.run(QUICK, { env: { MAILVERIFY_NO_UPDATE_CHECK: '', MAILVERIFY_UPDATE_REGISTRY: registry.url, CI: '', XDG_CACHE_HOME: cacheHome(cli) } });
    const before = registry.requests.length;
    // None of them even starts a check.
    for (const [name, args, extra] of variants) {
      const run = await onTerminal(args, { ...env, ...extra });
      expect(run.code, `${name}: ${run.screen}`).toBe(0);
    }
    const piped0 = await notOnTerminal();
    expect(piped0.code, piped0.stderr).toBe(0);
    expect(await state(cli)).toBeUndefined();
    expect(registry.requests.length).toBe(before);

    // Now a newer version is known, and would be shown at the next run on a terminal: none of them shows it.
    await onTerminal(QUICK, env);
    await checkEnded(cli, 'answeredAt');
    for (const [name, args, extra] of variants) {
      const run = await onTerminal(args, { ...env, ...extra });
      expect(run.screen, name).not.toContain('is available');
    }
    const piped = await notOnTerminal();
    expect(piped.stderr).not.toContain('is available');
    // The control: the same terminal without them shows it.
    expect((await onTerminal(QUICK, env)).screen).toContain(NOTICE);
  });

  it('a registry that does not answer: no notice, and the command is not delayed', async () => {
    // A sandbox for each run, so that each run starts a check of its own; runs with the check off
    // and on taken in turns, so that the load of a shared machine falls on both alike.
    const runs = 5;
    const withCheck: CliSandbox[] = await Promise.all(Array.from({ length: runs }, () => sandbox()));
    const off: Timing[] = [];
    const on: Timing[] = [];
    for (const cli of withCheck) {
      const env = personEnv(cli, silent.url);
      off.push(await timed(cli, { ...env, MAILVERIFY_NO_UPDATE_CHECK: '1' }));
      const run = await onTerminal(QUICK, { ...env, ...timing(cli) });
      expect(run.code, run.screen).toBe(0);
      expect(run.screen).not.toContain('is available');
      on.push(await readTiming(cli));
    }
    // What the check adds after the command's output (reading the state, starting the child): the
    // process's own clock, so little of the machine's load is in it; the best of each, loosely.
    const best = (timings: Timing[], key: keyof Timing) => Math.min(...timings.map((each) => each[key]));
    expect(best(on, 'afterOutput') - best(off, 'afterOutput'), JSON.stringify({ on, off })).toBeLessThan(100);
    // And the whole run is not held by a registry that never answers (the check gives up after 5 s).
    expect(best(on, 'total') - best(off, 'total'), JSON.stringify({ on, off })).toBeLessThan(1_000);
    for (const cli of withCheck) {
      const ended = await checkEnded(cli, 'failedAt');
      expect(ended.latest).toBeUndefined();
      expect((await onTerminal(QUICK, personEnv(cli, silent.url))).screen).not.toContain('is available');
    }
    expect(silent.requests.filter((path) => path === '/mailverify').length).toBe(runs);
  });
});
