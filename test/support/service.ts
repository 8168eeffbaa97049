import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { testTempDir } from './temp-dirs.js';

/**
 * The real service for end-to-end tests: the BUILT binary (`npm run build` first) spawned as
 * `mailverify serve --port 0` on a temp data dir, with the engine allowed to reach loopback
 * fixtures. Admin commands run as separate processes against the same data dir, as an operator
 * would run them beside a live server.
 */

export const BIN = fileURLToPath(new URL('../../bin/mailverify.js', import.meta.url));

const LISTENING = /mailverify: listening on (http:\/\/\S+)/;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

export interface CommandOutput {
  stdout: string;
  stderr: string;
  code: number | null;
}

export interface ServiceOptions {
  /** Data dir to use (e.g. to restart on the data of a killed service); a temp dir otherwise. */
  dataDir?: string;
  /** A PostgreSQL database for `serve --database-url` (and the admin commands) instead of SQLite in the data dir. */
  databaseUrl?: string;
  /** Port to listen on (to restart on the port of a stopped service); a free one otherwise. */
  port?: number;
  /** Extra `serve` flags, typically the engine's (`--dns-server`, `--smtp-port`, ...). */
  engineArgs?: string[];
  env?: NodeJS.ProcessEnv;
  /** Let the engine and webhooks reach loopback and private networks (`--allow-private-networks`); true unless false. */
  allowPrivateNetworks?: boolean;
}

export interface NewUserOptions {
  credits: number;
  rateLimit?: number;
  password?: string;
}

export interface RunningService {
  baseUrl: string;
  dataDir: string;
  /** The PostgreSQL store, when the service was started on one. */
  databaseUrl?: string;
  /** The serve process (to read its memory from /proc). */
  pid: number;
  /** The child's stderr so far (its logs and messages). */
  stderr(): string;
  /** Runs `mailverify admin <args>` against this service's store. */
  admin(args: string[], stdin?: string): Promise<CommandOutput>;
  /** Adds a user with `admin user add` and returns a fresh `mv_` token from `admin token create`. */
  createUser(email: string, options: NewUserOptions): Promise<string>;
  /** SIGTERM, then waits for a graceful exit (its exit code is returned); removes the data dir when this helper created it. */
  stop(): Promise<number | null>;
  /** Sends a signal (SIGKILL to simulate a crash) and waits for the process to end; keeps the data dir. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

function childEnv(extra: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', ...extra };
}

/** Spawns the built CLI and collects its output; resolves when it exits. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
    child.stdin.end(options.stdin ?? '');
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A long-running `mailverify` command (`serve`, `worker`) as a child process, once it said it is ready. */
interface LongRunning {
  /** The first capture group of the ready line (the URL for `serve`). */
  ready: string;
  pid: number;
  stderr(): string;
  /** SIGTERM, then waits for a graceful exit (SIGKILL after STOP_TIMEOUT_MS); returns the exit code. */
  stop(): Promise<number | null>;
  /** Sends a signal (SIGKILL to simulate a crash) and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Spawns the built CLI and waits for `ready` on its stderr; fails with everything it said if it exits or hangs first. */
async function startLongRunning(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<LongRunning> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.resume();
  const what = `mailverify ${args[0]}`;
  const match = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${what} did not start within ${START_TIMEOUT_MS} ms:\n${stderr}`)), START_TIMEOUT_MS);
    const onData = () => {
      const found = ready.exec(stderr);
      if (found) finish(() => resolve(found[1] ?? found[0]));
    };
    const onExit = (code: number | null, signal: string | null) => fail(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${stderr}`));
    function finish(settle: () => void) {
      clearTimeout(timer);
      child.stderr.off('data', onData);
      child.off('exit', onExit);
      settle();
    }
    function fail(error: Error) {
      finish(() => reject(error));
      child.kill('SIGKILL');
    }
    child.stderr.on('data', onData);
    child.on('exit', onExit);
  });
  return {
    ready: match,
    pid: child.pid!,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited(child);
      clearTimeout(timer);
      return child.exitCode;
    },
    async kill(signal) {
      child.kill(signal);
      await exited(child);
    },
  };
}

export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const ownsDataDir = options.dataDir === undefined;
  // A data dir made here is removed by stop(), or at the end of the test file when the service was
  // killed (its data kept for a restart on it) or never started.
  const dataDir = options.dataDir ?? testTempDir('service');
  const env = childEnv({ ...options.env, MAILVERIFY_DATA_DIR: dataDir });
  const storeArgs = options.databaseUrl === undefined ? [] : ['--database-url', options.databaseUrl];
  const args = [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port ?? 0),
    '--data-dir',
    dataDir,
    ...storeArgs,
    ...(options.allowPrivateNetworks === false ? [] : ['--allow-private-networks']),
    '--no-web-check',
    ...(options.engineArgs ?? []),
  ];
  const serve = await startLongRunning(args, env, LISTENING);

  const admin = (adminArgs: string[], stdin?: string) => runCli(['admin', ...storeArgs, ...adminArgs], { env, stdin });
  const expectSuccess = (result: CommandOutput, what: string) => {
    if (result.code !== 0) throw new Error(`${what} exited ${result.code}: ${result.stderr}`);
    return result;
  };

  return {
    baseUrl: serve.ready,
    dataDir,
    databaseUrl: options.databaseUrl,
    pid: serve.pid,
    stderr: serve.stderr,
    admin,
    async createUser(email, { credits, rateLimit, password }) {
      const addArgs = ['user', 'add', email, '--credits', String(credits)];
      if (rateLimit !== undefined) addArgs.push('--rate-limit', String(rateLimit));
      if (password !== undefined) addArgs.push('--password-stdin');
      expectSuccess(await admin(addArgs, password === undefined ? undefined : `${password}\n`), `admin user add ${email}`);
      const created = expectSuccess(await admin(['token', 'create', email]), `admin token create ${email}`);
      return created.stdout.trim();
    },
    async stop() {
      const code = await serve.stop();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
      return code;
    },
    kill: serve.kill,
  };
}

const WORKER_READY = /mailverify: worker running \(pid (\d+)/;

export interface RunningWorker {
  pid: number;
  /** Its logs (`--log-level info` shows every chunk it claims). */
  stderr(): string;
  stop(): Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** The built `mailverify worker` on a service's store (`args`: engine flags, `--lease-seconds`, ...), once it runs. */
export async function startWorker(
  service: Pick<RunningService, 'dataDir' | 'databaseUrl'>,
  args: string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<RunningWorker> {
  const storeArgs = service.databaseUrl === undefined ? [] : ['--database-url', service.databaseUrl];
  const workerArgs = ['worker', '--data-dir', service.dataDir, ...storeArgs, '--allow-private-networks', '--no-web-check', ...args];
  const worker = await startLongRunning(workerArgs, childEnv(env), WORKER_READY);
  return { pid: Number(worker.ready), stderr: worker.stderr, stop: worker.stop, kill: worker.kill };
}
