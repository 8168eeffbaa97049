import type { EgressStanding, EngineOptions, NetworkStatus } from '../../engine/index.js';
import {
  DEFAULT_LEASE_SECONDS,
  DEFAULT_STANDING_INTERVAL_MS,
  LOG_LEVELS,
  networkProblems,
  standingProblems,
  UNTIL_FIXED,
  type ServicePolicy,
} from '../../server/settings.js';
import { durationMs, engineFlags, integer, resolvedEngineOptions } from '../options/engine-flags.js';
import type { ParsedCommand } from '../options/parsed-command.js';
import { serviceProcessFlags } from '../options/service-flags.js';
import { storeFlags, type StoreFlags } from '../options/store-flags.js';
import { CliError, ExitCode, UsageError } from '../output/errors.js';
import { parseServicePolicy } from './service-policy.js';

/**
 * What the long-running commands (`serve`, `worker`) share: reading their common flags, waiting
 * for a stop signal, and closing within a bound once it comes.
 */

const SHUTDOWN_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
/**
 * How long work in flight at a shutdown signal may take to finish before the process exits
 * without it: short enough that the whole stop takes under 5 s in every state.
 */
const SHUTDOWN_GRACE_MS = 3_000;
/** Longest lease: a day. A runner that died holds its items at most this long. */
const MAX_LEASE_SECONDS = 86_400;

export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where the metrics listener is, when there is one. */
export interface MetricsListenerAt {
  host: string;
  port: number;
}

/** What `serve` and `worker` both resolve from their flags and the environment before anything starts. */
export interface ServiceSettings {
  /** The engine's options, complete and checked by the engine. */
  engine: EngineOptions;
  logLevel: LogLevel;
  /** How long a claim on bulk work lasts unless renewed. */
  leaseMs: number;
  metrics?: MetricsListenerAt;
  policy: ServicePolicy;
  /** How often the egresses' standing is checked; 0 never. */
  standingIntervalMs: number;
  /** Where the store is, as given: made ready (a data dir created) only as the process starts (store-location.ts). */
  store: StoreFlags;
}

/** The settings `serve` and `worker` share, each flag over its environment variable; the first wrong one is a usage error. */
export async function serviceSettings(parsed: ParsedCommand, env: NodeJS.ProcessEnv): Promise<ServiceSettings> {
  const flags = serviceProcessFlags(parsed.flags);
  const engine = await resolvedEngineOptions(engineFlags(parsed), env);
  const logLevel = parseLogLevel(flags.logLevel, env);
  const leaseMs = parseLeaseMs(flags.leaseSeconds, env);
  const metrics = parseMetricsListener(flags, env);
  const policy = parseServicePolicy(flags, env);
  const standingIntervalMs = parseStandingIntervalMs(flags.standingInterval, env);
  return { engine, logLevel, leaseMs, metrics, policy, standingIntervalMs, store: storeFlags(parsed.flags) };
}

/** Where `--metrics-port`/`--metrics-host` (or their environment) put the metrics listener; none unless a port is given. */
function parseMetricsListener(flags: { metricsPort?: string; metricsHost?: string }, env: NodeJS.ProcessEnv): MetricsListenerAt | undefined {
  const port = flags.metricsPort ?? (env.MAILVERIFY_METRICS_PORT?.trim() || undefined);
  if (port === undefined) return undefined;
  return { host: flags.metricsHost ?? (env.MAILVERIFY_METRICS_HOST?.trim() || '127.0.0.1'), port: integer(0, 65_535)(port, '--metrics-port') };
}

/**
 * A promise rejected with nobody to hear it (a driver's callback after a lost connection) is a bug
 * to log, never a reason to end a service that holds work in flight. Returns what stops listening.
 */
function logStrayRejections(stderr: NodeJS.WritableStream): () => void {
  const log = (reason: unknown) => {
    stderr.write(`mailverify: a stray error was ignored: ${reason instanceof Error ? reason.message : String(reason)}\n`);
  };
  process.on('unhandledRejection', log);
  return () => void process.off('unhandledRejection', log);
}

/**
 * Says at start, in plain words on stderr, what is wrong with the network this process verifies
 * from, so that the operator hears of it before the first paid address does: one
 * `mailverify: warning:` line a problem, with the fix, at any --log-level (the log leaves out what
 * this says: afterStartUp). Not waited for: the check may take a connect timeout.
 */
function warnAboutNetwork(check: Promise<NetworkStatus>, stderr: NodeJS.WritableStream): void {
  check.then(
    (status) => {
      for (const problem of networkProblems(status)) stderr.write(`mailverify: warning: ${problem}. ${UNTIL_FIXED}\n`);
    },
    () => undefined,
  );
}

/**
 * Says at start, on stderr, each problem with the standing of our egresses (blocklisted, reverse DNS,
 * HELO), with its fix: unlike the network's problems these do not stop verification, but providers
 * refuse or mark down what comes from such an address. Not waited for.
 */
function warnAboutStanding(check: Promise<readonly EgressStanding[]> | undefined, stderr: NodeJS.WritableStream): void {
  check?.then(
    (standings) => {
      for (const problem of standingProblems(standings)) stderr.write(`mailverify: warning: ${problem}\n`);
    },
    () => undefined,
  );
}

/** What a started `serve` or `worker` has to say besides its ready line: where its metrics are, and what is wrong with its network or egresses. */
export function sayStarted(
  started: { metricsUrl?: string; networkChecked: Promise<NetworkStatus>; standingChecked?: Promise<readonly EgressStanding[]> },
  stderr: NodeJS.WritableStream,
): void {
  if (started.metricsUrl) stderr.write(`mailverify: metrics on ${started.metricsUrl}\n`);
  warnAboutNetwork(started.networkChecked, stderr);
  warnAboutStanding(started.standingChecked, stderr);
}

/** `--standing-interval` > MAILVERIFY_STANDING_INTERVAL > 30m: how often the egresses' standing is checked; 0 turns it off. */
function parseStandingIntervalMs(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  const raw = flag ?? (env.MAILVERIFY_STANDING_INTERVAL?.trim() || undefined);
  return raw === undefined ? DEFAULT_STANDING_INTERVAL_MS : durationMs(raw, '--standing-interval', 'or 0 to turn the check off');
}

function parseLogLevel(flag: string | undefined, env: NodeJS.ProcessEnv): LogLevel {
  const level = (flag ?? env.MAILVERIFY_LOG_LEVEL ?? 'warn').trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return level as LogLevel;
}

/** `--lease-seconds` > MAILVERIFY_LEASE_SECONDS > 60, in milliseconds. */
function parseLeaseMs(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  const fromEnv = env.MAILVERIFY_LEASE_SECONDS?.trim();
  const raw = flag ?? (fromEnv === '' ? undefined : fromEnv) ?? String(DEFAULT_LEASE_SECONDS);
  return integer(1, MAX_LEASE_SECONDS)(raw, '--lease-seconds') * 1_000;
}

/**
 * The first SIGINT or SIGTERM. The handlers are removed then, so a second signal ends the process
 * the default way should the graceful close hang; `dispose` removes them when none came.
 */
function firstShutdownSignal(): { signal: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal!: (signal: NodeJS.Signals) => void;
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (received) => {
      dispose();
      resolve(received);
    };
  });
  const dispose = () => {
    for (const name of SHUTDOWN_SIGNALS) process.off(name, onSignal);
  };
  for (const name of SHUTDOWN_SIGNALS) process.on(name, onSignal);
  return { signal, dispose };
}

/**
 * Runs `body` (a service process from its start to its close) with the first SIGINT or SIGTERM
 * to wait for, and stray rejections logged on `stderr`; the process's listeners for both are
 * removed when it ends, however it ends, so that nothing is left behind in a process that goes on.
 */
export async function withShutdownSignal<T>(stderr: NodeJS.WritableStream, body: (shutdown: Promise<NodeJS.Signals>) => Promise<T>): Promise<T> {
  const shutdown = firstShutdownSignal();
  const stopLogging = logStrayRejections(stderr);
  try {
    return await body(shutdown.signal);
  } finally {
    shutdown.dispose();
    stopLogging();
  }
}

/** A close that outlasts the grace: exit 1, without waiting for it (src/cli/main.ts ends the process). */
function stillClosing(): CliError {
  return new CliError(`still closing ${SHUTDOWN_GRACE_MS / 1000} s after the signal; exiting without waiting`, ExitCode.failure);
}

/**
 * Waits for the stop signal, then closes, within SHUTDOWN_GRACE_MS of the signal (else fails with
 * stillClosing). It does not end the process: src/cli/main.ts does, once the command is over,
 * because the engine's probes the runner abandoned may still hold the event loop.
 */
export async function runUntilSignal(
  shutdown: Promise<NodeJS.Signals>,
  running: { close(): Promise<void> } | Promise<{ close(): Promise<void> }>,
  stderr: NodeJS.WritableStream,
): Promise<void> {
  const signal = await shutdown;
  stderr.write(`mailverify: ${signal} received, shutting down\n`);
  let overdue: NodeJS.Timeout | undefined;
  const grace = new Promise<never>((_resolve, reject) => {
    overdue = setTimeout(() => reject(stillClosing()), SHUTDOWN_GRACE_MS);
  });
  try {
    // Still starting at the signal: closed as soon as it is up (within the same grace).
    await Promise.race([Promise.resolve(running).then((service) => service.close()), grace]);
  } finally {
    clearTimeout(overdue);
  }
}
