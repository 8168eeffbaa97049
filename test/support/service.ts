import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  /** Extra `serve` flags, typically the engine's (`--dns-server`, `--smtp-port`, ...). */
  engineArgs?: string[];
  env?: NodeJS.ProcessEnv;
}

export interface NewUserOptions {
  credits: number;
  rateLimit?: number;
  password?: string;
}

export interface RunningService {
  baseUrl: string;
  dataDir: string;
  /** The child's stderr so far (its logs and messages). */
  stderr(): string;
  /** Runs `mailverify admin <args>` against this service's data dir. */
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

/** Waits for the listening line on stderr; fails with everything the child said if it exits or hangs first. */
function waitForListening(child: ChildProcess, output: { stderr: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`mailverify serve did not start within ${START_TIMEOUT_MS} ms:\n${output.stderr}`)), START_TIMEOUT_MS);
    const onData = () => {
      const match = LISTENING.exec(output.stderr);
      if (match) finish(() => resolve(match[1]!));
    };
    const onExit = (code: number | null, signal: string | null) =>
      fail(new Error(`mailverify serve exited (${code ?? signal}) before listening:\n${output.stderr}`));
    function finish(settle: () => void) {
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      settle();
    }
    function fail(error: Error) {
      finish(() => reject(error));
      child.kill('SIGKILL');
    }
    child.stderr!.on('data', onData);
    child.on('exit', onExit);
  });
}

export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'mailverify-service-')));
  const env = childEnv({ ...options.env, MAILVERIFY_DATA_DIR: dataDir });
  const args = [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--allow-private-networks', '--no-web-check', ...(options.engineArgs ?? [])];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stderr: '' };
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  child.stdout.resume();
  const baseUrl = await waitForListening(child, output);

  const admin = (adminArgs: string[], stdin?: string) => runCli(['admin', ...adminArgs], { env, stdin });
  const expectSuccess = (result: CommandOutput, what: string) => {
    if (result.code !== 0) throw new Error(`${what} exited ${result.code}: ${result.stderr}`);
    return result;
  };

  return {
    baseUrl,
    dataDir,
    stderr: () => output.stderr,
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
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited(child);
      clearTimeout(timer);
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
      return child.exitCode;
    },
    async kill(signal) {
      child.kill(signal);
      await exited(child);
    },
  };
}
