import { createServer } from 'node:net';
import type { HttpTimeouts } from '../../server/settings.js';
import { durationMs, engineFlags, integer, resolvedEngineOptions, type EngineFlags } from '../options/engine-flags.js';
import type { Io } from '../output/io.js';
import { textFlag, unlessNegated, type ParsedCommand } from '../options/parsed-command.js';
import { serviceProcessFlags, type ServiceProcessFlags } from '../options/service-flags.js';
import { CliError, ExitCode } from '../output/errors.js';
import {
  firstShutdownSignal,
  logStrayRejections,
  parseLeaseMs,
  parseLogLevel,
  parseMetricsListener,
  parseStandingIntervalMs,
  runUntilSignal,
  warnAboutNetwork,
  warnAboutStanding,
} from '../local-service/service-process.js';
import { parseServicePolicy } from '../local-service/service-policy.js';
import { storeLocationFrom, storeUnavailable } from '../local-service/store-location.js';
import { parseTrustProxy } from '../local-service/trust-proxy.js';

/** `serve`'s own flags as given, besides those it shares with `worker`. */
interface ServeFlags {
  host: string;
  headersTimeout?: string;
  requestTimeout?: string;
  keepAliveTimeout?: string;
  trustProxy?: string;
  uploadRetention?: string;
  /** False with --no-worker. */
  worker: boolean;
}

/** `serve`'s options: the port checked; the rest is checked with the environment as the service starts. */
export interface ServeOptions {
  port: number;
  serve: ServeFlags;
  flags: ServiceProcessFlags;
  engine: EngineFlags;
}

/** Errors of `listen` that are the operator's to fix (a port taken, an address not ours), not bugs. */
const LISTEN_ERRORS = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND']);

const parsePort = (raw: string) => integer(0, 65_535)(raw, '--port');
/** The longest timer Node keeps: a longer HTTP timeout would fire at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The HTTP timeouts given as flags (whole milliseconds above 0); the server's defaults for the others. */
function parseHttpTimeouts(flags: ServeFlags): Partial<HttpTimeouts> {
  const timeouts: Partial<HttpTimeouts> = {};
  const read = (key: keyof HttpTimeouts, flag: string, raw: string | undefined) => {
    if (raw !== undefined) timeouts[key] = integer(1, MAX_TIMEOUT_MS)(raw, flag);
  };
  read('headersMs', '--headers-timeout', flags.headersTimeout);
  read('requestMs', '--request-timeout', flags.requestTimeout);
  read('keepAliveMs', '--keep-alive-timeout', flags.keepAliveTimeout);
  return timeouts;
}

/** `--upload-retention` > MAILVERIFY_UPLOAD_RETENTION (at least a second); the server's default (a day) when neither is given. */
function parseUploadRetentionMs(flag: string | undefined, env: NodeJS.ProcessEnv): number | undefined {
  const given = flag ?? (env.MAILVERIFY_UPLOAD_RETENTION?.trim() || undefined);
  return given === undefined ? undefined : Math.max(1_000, durationMs(given, '--upload-retention'));
}

/** What to tell an operator whose address or port cannot be listened on. */
function cannotListen(host: string, port: number, error: NodeJS.ErrnoException): CliError {
  const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.message;
  return new CliError(`cannot listen on ${host}:${port}: ${why}`, ExitCode.failure, 'choose another with --port (or --host)');
}

/**
 * Binds and lets go of the address first, so that a port in use is said before anything is made
 * (no data dir, no database file for a service that could not start).
 */
async function checkListenable(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(LISTEN_ERRORS.has(error.code ?? '') ? cannotListen(host, port, error) : error));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

export function parse(parsed: ParsedCommand): ServeOptions {
  const { flags } = parsed;
  const text = (key: string) => textFlag(flags, key);
  // --host and --port have defaults: always there.
  const serve = {
    host: text('host')!,
    headersTimeout: text('headersTimeout'),
    requestTimeout: text('requestTimeout'),
    keepAliveTimeout: text('keepAliveTimeout'),
    trustProxy: text('trustProxy'),
    uploadRetention: text('uploadRetention'),
    worker: unlessNegated(flags, 'worker'),
  };
  return { port: parsePort(text('port')!), serve, flags: serviceProcessFlags(flags), engine: engineFlags(parsed) };
}

/** Starts the service and runs it until SIGINT or SIGTERM. */
export async function run({ port, serve, flags, engine: given }: ServeOptions, { env }: Io): Promise<void> {
  const engine = await resolvedEngineOptions(given, env);
  const logLevel = parseLogLevel(flags.logLevel, env);
  const httpTimeouts = parseHttpTimeouts(serve);
  const trustProxy = parseTrustProxy(serve.trustProxy, env);
  const uploadRetentionMs = parseUploadRetentionMs(serve.uploadRetention, env);
  const leaseMs = parseLeaseMs(flags.leaseSeconds, env);
  const metrics = parseMetricsListener(flags, env);
  const policy = parseServicePolicy(flags, env);
  await checkListenable(serve.host, port);
  const shutdown = firstShutdownSignal();
  logStrayRejections();
  const store = await storeLocationFrom(flags, env);
  const standingIntervalMs = parseStandingIntervalMs(flags.standingInterval, env);
  const options = {
    host: serve.host,
    port,
    ...store,
    ...policy,
    engine,
    logLevel,
    httpTimeouts,
    trustProxy,
    worker: serve.worker,
    leaseMs,
    metrics,
    standingIntervalMs,
    uploadRetentionMs,
  };
  const { startServer } = await import('../../server/serve.js');
  const starting = startServer(options).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== undefined && LISTEN_ERRORS.has(error.code)) throw cannotListen(options.host, options.port, error);
    throw storeUnavailable(error) ?? error;
  });
  // A signal while starting stops the start too: the server is closed as soon as it is up.
  const first = await Promise.race([starting, shutdown]);
  // Tests and scripts read the bound port (with --port 0) from this line.
  if (typeof first !== 'string') {
    process.stderr.write(`mailverify: listening on ${first.url}${options.worker ? '' : ' (API only: no job runner)'}\n`);
    if (first.metricsUrl) process.stderr.write(`mailverify: metrics on ${first.metricsUrl}\n`);
    warnAboutNetwork(first.networkChecked);
    warnAboutStanding(first.standingChecked);
  }
  await runUntilSignal(shutdown, starting);
}
