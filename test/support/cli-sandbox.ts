import { mkdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, runCli, type CommandOutput } from './service.js';
import { testTempDir } from './temp-dirs.js';

/** A CLI run the test can watch and signal while it goes on. */
export interface StartedCli {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
  done: Promise<CommandOutput & { signal: string | null }>;
}

/**
 * The built CLI as a user runs it, with a config dir of its own (MAILVERIFY_CONFIG_DIR), fixed
 * environment (base URL, NO_COLOR) and a record of everything it printed, so that a test can check
 * that no secret ever reached stdout or stderr.
 */
export interface CliSandbox {
  configDir: string;
  configPath: string;
  run(args: string[], options?: { stdin?: string; env?: NodeJS.ProcessEnv }): Promise<CommandOutput>;
  /** Starts the CLI (stdin closed) and returns at once. */
  start(args: string[], options?: { env?: NodeJS.ProcessEnv }): StartedCli;
  /** Every stdout and stderr captured so far. */
  printed(): string;
  /** The config file's JSON, or undefined when it does not exist. */
  config(): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

export async function createCliSandbox(env: NodeJS.ProcessEnv = {}): Promise<CliSandbox> {
  const root = testTempDir('cli');
  const configDir = join(root, 'config');
  const configPath = join(configDir, 'config.json');
  // The CLI's own temp files (a copy of a list piped to `bulk submit -` that a service job keeps for
  // a later merge) stay in the sandbox, and go with it.
  const tmp = join(root, 'tmp');
  mkdirSync(tmp);
  const outputs: string[] = [];
  // MAILVERIFY_TOKEN and MAILVERIFY_PROFILE from the test runner's own environment must not leak in,
  // nor test tokens into the desktop's keyring: no D-Bus session unless the test brings its own
  // (test/e2e/cli-keyring.test.ts).
  const envFor = (extra: NodeJS.ProcessEnv = {}) => ({
    MAILVERIFY_TOKEN: '',
    MAILVERIFY_PROFILE: '',
    DBUS_SESSION_BUS_ADDRESS: '',
    NO_COLOR: '1',
    TMPDIR: tmp,
    ...env,
    MAILVERIFY_CONFIG_DIR: configDir,
    ...extra,
  });
  return {
    configDir,
    configPath,
    async run(args, options = {}) {
      const result = await runCli(args, { stdin: options.stdin, env: envFor(options.env) });
      outputs.push(result.stdout, result.stderr);
      return result;
    },
    start(args, options = {}) {
      const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...envFor(options.env) }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const done = new Promise<CommandOutput & { signal: string | null }>((resolve) =>
        child.on('close', (code, signal) => {
          outputs.push(stdout, stderr);
          resolve({ code, signal, stdout, stderr });
        }),
      );
      return { child, output: () => ({ stdout, stderr }), done };
    },
    printed: () => outputs.join('\n'),
    async config() {
      try {
        return JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    close: () => rm(root, { recursive: true, force: true }),
  };
}
