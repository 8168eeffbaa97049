import { createServer } from 'node:net';
import type { HttpTimeouts, TrustProxy } from '../../server/settings.js';
import { durationMs, integer } from '../options/engine-flags.js';
import type { Io } from '../output/io.js';
import { textFlag, unlessNegated, type ParsedCommand, type RawFlags } from '../options/parsed-command.js';
import { CliError, ExitCode } from '../output/errors.js';
import { runUntilSignal, sayStarted, serviceSettings, withShutdownSignal, type ServiceSettings } from '../local-service/service-process.js';
import { storeLocationFrom, storeUnavailable } from '../local-service/store-location.js';
import { parseTrustProxy } from '../local-service/trust-proxy.js';

/** `serve`'s options, every one resolved (flag, environment, default) and checked before anything starts. */
export interface ServeOptions extends ServiceSettings {
  host: string;
  port: number;
  /** The HTTP server's timeouts where given; its defaults for the others. */
  httpTimeouts: Partial<HttpTimeouts>;
  /** The reverse proxies to believe, if any. */
  trustProxy?: TrustProxy;
  /** Undefined: the server's default (a day). */
  uploadRetentionMs?: number;
  /** False with --no-worker: the API alone. */
  worker: boolean;
}

/** Errors of `listen` that are the operator's to fix (a port taken, an address not ours), not bugs. */
const LISTEN_ERRORS = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND']);

const parsePort = (raw: string) => integer(0, 65_535)(raw, '--port');
/** The longest timer Node keeps: a longer HTTP timeout would fire at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The HTTP timeouts given as flags (whole milliseconds above 0); the server's defaults for the others. */
function parseHttpTimeouts(flags: RawFlags): Partial<HttpTimeouts> {
  const timeouts: Partial<HttpTimeouts> = {};
  const read = (key: keyof HttpTimeouts, flag: string, raw: string | undefined) => {
    if (raw !== undefined) timeouts[key] = integer(1, MAX_TIMEOUT_MS)(raw, flag);
  };
  read('headersMs', '--headers-timeout', textFlag(flags, 'headersTimeout'));
  read('requestMs', '--request-timeout', textFlag(flags, 'requestTimeout'));
  read('keepAliveMs', '--keep-alive-timeout', textFlag(flags, 'keepAliveTimeout'));
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

/** Every setting of `serve`, in the order a user hears of the first wrong one: the port, the HTTP flags, then those `worker` shares. */
export async function parse(parsed: ParsedCommand, env: NodeJS.ProcessEnv): Promise<ServeOptions> {
  const { flags } = parsed;
  // --host and --port have defaults: always there.
  const port = parsePort(textFlag(flags, 'port')!);
  const httpTimeouts = parseHttpTimeouts(flags);
  const trustProxy = parseTrustProxy(textFlag(flags, 'trustProxy'), env);
  const uploadRetentionMs = parseUploadRetentionMs(textFlag(flags, 'uploadRetention'), env);
  const shared = await serviceSettings(parsed, env);
  return { host: textFlag(flags, 'host')!, port, httpTimeouts, trustProxy, uploadRetentionMs, worker: unlessNegated(flags, 'worker'), ...shared };
}

/** Starts the service and runs it until SIGINT or SIGTERM. */
export async function run(options: ServeOptions, { env, stderr }: Io): Promise<void> {
  const { host, port, policy, store: storeFlags, ...settings } = options;
  await checkListenable(host, port);
  await withShutdownSignal(stderr, async (shutdown) => {
    const store = await storeLocationFrom(storeFlags, env);
    const { startServer } = await import('../../server/serve.js');
    const starting = startServer({ ...settings, host, port, ...store, ...policy }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== undefined && LISTEN_ERRORS.has(error.code)) throw cannotListen(host, port, error);
      throw storeUnavailable(error) ?? error;
    });
    // A signal while starting stops the start too: the server is closed as soon as it is up.
    const first = await Promise.race([starting, shutdown]);
    // Tests and scripts read the bound port (with --port 0) from this line.
    if (typeof first !== 'string') {
      stderr.write(`mailverify: listening on ${first.url}${options.worker ? '' : ' (API only: no job runner)'}\n`);
      sayStarted(first, stderr);
    }
    await runUntilSignal(shutdown, starting, stderr);
  });
}
