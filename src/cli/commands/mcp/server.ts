import { VERSION } from '../../../version.js';
import { privateLocalDataDir } from '../../local-service/data-dir.js';
import { engineFlags, refuseEngineFlagsWithoutLocal, resolvedEngineOptions, type EngineFlags } from '../../options/engine-flags.js';
import type { Io } from '../../output/io.js';
import { switchFlag, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { UsageError } from '../../output/errors.js';
import type { McpBackend } from './backend.js';
import { callKeys } from './idempotency.js';

/** `mcp`'s options, checked. */
export interface McpOptions {
  program: ProgramOptions;
  local: boolean;
  engine: EngineFlags;
  /** --data-dir, with --local. */
  dataDir?: string;
}

export function parse(parsed: ParsedCommand): McpOptions {
  const { flags } = parsed;
  const local = switchFlag(flags, 'local');
  const engine = engineFlags(parsed);
  const dataDir = textFlag(flags, 'dataDir');
  if (!local) refuseEngineFlagsWithoutLocal(engine);
  if (!local && dataDir !== undefined) throw new UsageError('--data-dir needs --local');
  return { program: programOptions(parsed.program), local, engine, dataDir };
}

/** Says on stderr (never stdout: it carries the protocol alone) what a message of the server is about. */
function stderrLine(io: Io, message: string): void {
  io.stderr.write(`mailverify: ${message}\n`);
}

async function backendFor(options: McpOptions, io: Io): Promise<McpBackend> {
  if (!options.local) return (await import('./remote-backend.js')).remoteBackend(options.program, io);
  const engine = await resolvedEngineOptions(options.engine, io.env);
  const dataDir = await privateLocalDataDir(options.dataDir, io.env, (message) => stderrLine(io, message));
  return (await import('./local-backend.js')).localBackend(dataDir, engine, (message) => stderrLine(io, `warning: ${message}`));
}

/** Resolves when the client is gone: stdin ended, or a stop signal. */
function untilClosed(io: Io): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    io.stdin.once('end', done);
    io.stdin.once('close', done);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/**
 * Serves the tools over stdio until the client closes stdin (docs/cli.md "For agents"). The SDK is
 * loaded here, in the command's own module, so that no other command (nor --help) loads it.
 */
export async function run(options: McpOptions, io: Io): Promise<void> {
  const [{ McpServer }, { StdioServerTransport }, { registerTools }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('./tools.js'),
  ]);
  const backend = await backendFor(options, io);
  try {
    const server = new McpServer(
      { name: 'mailverify', version: VERSION },
      { instructions: `Email verification by mailverify, on ${backend.where}. Tool descriptions say what each call costs.` },
    );
    registerTools(server, backend, callKeys(), io.env, options.local);
    const closed = untilClosed(io);
    await server.connect(new StdioServerTransport(io.stdin as NodeJS.ReadStream, io.stdout as NodeJS.WriteStream));
    stderrLine(io, `MCP server on stdio, verifying on ${backend.where}`);
    await closed;
    await server.close();
  } finally {
    await backend.close();
  }
}
