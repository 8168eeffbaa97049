/**
 * The two servers the service benchmark compares, each in a process of its own: the real
 * `mailverify serve` (the built binary on a temp data dir, a user with ample credits and rate
 * limit, created with `mailverify admin` as an operator would) and the bare fastify baseline.
 */
import { execFile, fork, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WORK_DIR, ensureWorkDir } from '../lib/work-dir.js';

const BIN = fileURLToPath(new URL('../../bin/mailverify.js', import.meta.url));
const LISTENING = /mailverify: listening on (http:\/\/\S+)/;
const WORKER_READY = /mailverify: worker running/;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
/** Enough that neither the balance nor the rate limit is what the benchmark measures. */
const PLENTY = 1_000_000_000;
const USER = 'bench@mailverify.test';

const run = promisify(execFile);

/** Resolves once the process has exited; SIGKILL if `signal` was not enough in time. */
async function stopProcess(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Resolves with the ready line's first group (the URL of `serve`) or the whole line. */
function waitForReady(child, ready = LISTENING) {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`mailverify did not start in time: ${stderr}`)), START_TIMEOUT_MS);
    const onData = (chunk) => {
      stderr += chunk;
      const match = ready.exec(stderr);
      if (match) finish(() => resolve(match[1] ?? match[0]));
    };
    const onExit = (code) => fail(new Error(`mailverify exited (${code}) before it was ready: ${stderr}`));
    function finish(settle) {
      clearTimeout(timer);
      child.stderr.off('data', onData);
      child.off('exit', onExit);
      // Keep draining stderr, so that a chatty server never blocks on a full pipe.
      child.stderr.resume();
      settle();
    }
    function fail(error) {
      finish(() => reject(error));
      child.kill('SIGKILL');
    }
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('exit', onExit);
  });
}

/**
 * `mailverify serve` with its engine pointed at the given fixture.
 * @param {string[]} engineArgs e.g. ['--dns-server', '127.0.0.1:5353', '--smtp-port', '25'], or more `serve` flags ('--no-worker')
 * @param {string[]} [nodeFlags] e.g. ['--cpu-prof', …]
 * @param {string} [databaseUrl] a PostgreSQL database for the store instead of SQLite in the data dir
 * @returns {Promise<{ url: string, token: string, addUser(email: string): Promise<string>, storeArgs: string[], dataDir: string, pid: number, stop(): Promise<void>, kill(): Promise<void> }>}
 *   `stop` shuts down gracefully (and so writes a CPU profile); `kill` does not wait for running jobs;
 *   `storeArgs` point `worker` and `admin` at the same store.
 */
export async function startMailverify(engineArgs, nodeFlags = [], databaseUrl) {
  await ensureWorkDir();
  const dataDir = await mkdtemp(join(fileURLToPath(WORK_DIR), 'service-'));
  const env = { ...process.env, NO_COLOR: '1', MAILVERIFY_DATA_DIR: dataDir };
  const storeArgs = ['--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])];
  const serveArgs = ['serve', '--host', '127.0.0.1', '--port', '0', ...storeArgs, '--log-level', 'warn'];
  const child = spawn(process.execPath, [...nodeFlags, BIN, ...serveArgs, '--allow-private-networks', '--no-web-check', ...engineArgs], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stopWith = (signal) => async () => {
    await stopProcess(child, signal);
    await rm(dataDir, { recursive: true, force: true });
  };
  const stop = stopWith('SIGTERM');
  try {
    const url = await waitForReady(child);
    const admin = (args) => run(process.execPath, [BIN, 'admin', ...storeArgs, ...args], { env });
    /** Another user with ample credits and rate limit; resolves with an API token of theirs. */
    const addUser = async (email) => {
      await admin(['user', 'add', email, '--credits', String(PLENTY), '--rate-limit', String(PLENTY)]);
      const { stdout } = await admin(['token', 'create', email, '--name', 'bench']);
      return stdout.trim();
    };
    const token = await addUser(USER);
    return { url, token, addUser, storeArgs, dataDir, pid: child.pid, stop, kill: stopWith('SIGKILL') };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * `mailverify worker` on the store of a `startMailverify` service (its `storeArgs`).
 * @param {string[]} [nodeFlags] e.g. ['--cpu-prof', …]
 * @returns {Promise<{ pid: number, stop(): Promise<void> }>}
 */
export async function startWorker(storeArgs, engineArgs, nodeFlags = []) {
  const args = ['worker', ...storeArgs, '--log-level', 'warn', '--allow-private-networks', '--no-web-check', ...engineArgs];
  const child = spawn(process.execPath, [...nodeFlags, BIN, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    await waitForReady(child, WORKER_READY);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return { pid: child.pid, stop: () => stopProcess(child) };
}

/**
 * The bare fastify baseline, answering with the given bodies.
 * @returns {Promise<{ url: string, pid: number, stop(): Promise<void> }>}
 */
export async function startBareServer(bodies) {
  const child = fork(new URL('./bare-server.js', import.meta.url), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const url = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.url));
    child.once('exit', (code) => reject(new Error(`bare fastify server exited (${code}) before listening`)));
    child.send(bodies);
  });
  child.removeAllListeners('exit');
  return { url, pid: child.pid, stop: () => stopProcess(child) };
}
