import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CommandOutput } from './service.js';

/**
 * The built CLI as a user runs it, with a config dir of its own (MAILVERIFY_CONFIG_DIR), fixed
 * environment (base URL, NO_COLOR) and a record of everything it printed, so that a test can check
 * that no secret ever reached stdout or stderr.
 */
export interface CliSandbox {
  configDir: string;
  configPath: string;
  run(args: string[], options?: { stdin?: string; env?: NodeJS.ProcessEnv }): Promise<CommandOutput>;
  /** Every stdout and stderr captured so far. */
  printed(): string;
  /** The config file's JSON, or undefined when it does not exist. */
  config(): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

export async function createCliSandbox(env: NodeJS.ProcessEnv = {}): Promise<CliSandbox> {
  const configDir = join(await mkdtemp(join(tmpdir(), 'mailverify-cli-')), 'config');
  const configPath = join(configDir, 'config.json');
  const outputs: string[] = [];
  return {
    configDir,
    configPath,
    async run(args, options = {}) {
      const result = await runCli(args, {
        stdin: options.stdin,
        // MAILVERIFY_TOKEN from the test runner's own environment must not leak in.
        env: { MAILVERIFY_TOKEN: '', NO_COLOR: '1', ...env, MAILVERIFY_CONFIG_DIR: configDir, ...options.env },
      });
      outputs.push(result.stdout, result.stderr);
      return result;
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
    close: () => rm(join(configDir, '..'), { recursive: true, force: true }),
  };
}
