import type { Command } from 'commander';
import { resolveDataDir } from '../../server/data-dir.js';
import type { HttpTimeouts } from '../../server/http-server.js';
import type { RunningServer } from '../../server/serve.js';
import { engineOptionsFrom } from '../engine-flags.js';
import { CliError, ExitCode, UsageError } from '../errors.js';

interface ServeFlags {
  host: string;
  port: string;
  dataDir?: string;
  logLevel?: string;
  headersTimeout?: string;
  requestTimeout?: string;
  keepAliveTimeout?: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const SHUTDOWN_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
/** How long requests in flight at a shutdown signal may take to finish before the process exits without them. */
const SHUTDOWN_GRACE_MS = 5_000;
/** Errors of `listen` that are the operator's to fix (a port taken, an address not ours), not bugs. */
const LISTEN_ERRORS = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND']);

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be a whole number from 0 to 65535, got "${raw}"`);
  return port;
}

/** The HTTP timeouts given as flags (whole milliseconds above 0); the server's defaults for the others. */
function parseHttpTimeouts(flags: ServeFlags): Partial<HttpTimeouts> {
  const timeouts: Partial<HttpTimeouts> = {};
  const read = (key: keyof HttpTimeouts, flag: string, raw: string | undefined) => {
    if (raw === undefined) return;
    const ms = Number(raw);
    if (!Number.isInteger(ms) || ms < 1) throw new UsageError(`${flag} takes a whole number of milliseconds above 0, got "${raw}"`);
    timeouts[key] = ms;
  };
  read('headersMs', '--headers-timeout', flags.headersTimeout);
  read('requestMs', '--request-timeout', flags.requestTimeout);
  read('keepAliveMs', '--keep-alive-timeout', flags.keepAliveTimeout);
  return timeouts;
}

function parseLogLevel(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const level = (flag ?? env.MAILVERIFY_LOG_LEVEL ?? 'warn').trim().toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return level;
}

/**
 * Resolves at the first SIGINT or SIGTERM. The handlers are removed then, so a second signal
 * ends the process the default way should the graceful close hang.
 */
function firstShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const name of SHUTDOWN_SIGNALS) process.off(name, onSignal);
      resolve(signal);
    };
    for (const name of SHUTDOWN_SIGNALS) process.on(name, onSignal);
  });
}

/**
 * Closes the server, then makes sure the process ends. The engine cannot be cancelled: probes the
 * job runner abandoned (open SMTP sessions, greylist retries due in a minute) would otherwise keep
 * the process alive long after the store is closed. Nothing is lost by not waiting for them: their
 * items have no stored result and are verified again on the next start, charged only once, at
 * submission. This is the one place the service ends the process itself.
 */
async function closeThenExit(server: RunningServer): Promise<void> {
  const overdue = setTimeout(() => {
    process.stderr.write(`mailverify: requests still running ${SHUTDOWN_GRACE_MS / 1000} s after the signal; exiting without them\n`);
    process.exit(ExitCode.failure);
  }, SHUTDOWN_GRACE_MS);
  try {
    await server.close();
  } finally {
    clearTimeout(overdue);
    // Runs after main() has set the exit code; unref'd, so an idle process simply ends first.
    setTimeout(() => process.exit(), 0).unref();
  }
}

export async function runServe(command: Command, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const flags = command.opts<ServeFlags>();
  const options = {
    host: flags.host,
    port: parsePort(flags.port),
    dataDir: resolveDataDir(flags.dataDir, env),
    engine: engineOptionsFrom(command, env),
    logLevel: parseLogLevel(flags.logLevel, env),
    httpTimeouts: parseHttpTimeouts(flags),
  };
  const shutdown = firstShutdownSignal();
  const { startServer } = await import('../../server/serve.js');
  const server = await startServer(options).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== undefined && LISTEN_ERRORS.has(error.code)) {
      throw new CliError(`cannot listen on ${options.host}:${options.port}: ${error.message}`, ExitCode.failure);
    }
    throw error;
  });
  // Tests and scripts read the bound port (with --port 0) from this line.
  process.stderr.write(`mailverify: listening on ${server.url}\n`);
  const signal = await shutdown;
  process.stderr.write(`mailverify: ${signal} received, shutting down\n`);
  await closeThenExit(server);
}
