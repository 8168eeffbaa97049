import type { EgressStanding, NetworkStatus } from '../../engine/index.js';
import { DEFAULT_LEASE_SECONDS, DEFAULT_STANDING_INTERVAL_MS, LOG_LEVELS, networkProblems, standingProblems, UNTIL_FIXED } from '../../server/settings.js';
import { durationMs, integer } from '../options/engine-flags.js';
import { ExitCode, UsageError } from '../output/errors.js';

/**
 * What the long-running commands (`serve`, `worker`) share: reading their common flags, waiting
 * for a stop signal, and ending the process once closed.
 */

const SHUTDOWN_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
/**
 * How long work in flight at a shutdown signal may take to finish before the process exits
 * without it: short enough that the whole stop takes under 5 s in every state.
 */
const SHUTDOWN_GRACE_MS = 3_000;
/** Longest lease: a day. A runner that died holds its items at most this long. */
const MAX_LEASE_SECONDS = 86_400;

/** Where `--metrics-port`/`--metrics-host` (or their environment) put the metrics listener; none unless a port is given. */
export function parseMetricsListener(
  flags: { metricsPort?: string; metricsHost?: string },
  env: NodeJS.ProcessEnv,
): { host: string; port: number } | undefined {
  const port = flags.metricsPort ?? (env.MAILVERIFY_METRICS_PORT?.trim() || undefined);
  if (port === undefined) return undefined;
  return { host: flags.metricsHost ?? (env.MAILVERIFY_METRICS_HOST?.trim() || '127.0.0.1'), port: integer(0, 65_535)(port, '--metrics-port') };
}

/**
 * A promise rejected with nobody to hear it (a driver's callback after a lost connection) is a bug
 * to log, never a reason to end a service that holds work in flight.
 */
export function logStrayRejections(): void {
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(`mailverify: a stray error was ignored: ${reason instanceof Error ? reason.message : String(reason)}\n`);
  });
}

/**
 * Says at start, in plain words on stderr, what is wrong with the network this process verifies
 * from, so that the operator hears of it before the first paid address does: one
 * `mailverify: warning:` line a problem, with the fix, at any --log-level (the log leaves out what
 * this says: afterStartUp). Not waited for: the check may take a connect timeout.
 */
export function warnAboutNetwork(check: Promise<NetworkStatus>): void {
  check.then(
    (status) => {
      for (const problem of networkProblems(status)) process.stderr.write(`mailverify: warning: ${problem}. ${UNTIL_FIXED}\n`);
    },
    () => undefined,
  );
}

/**
 * Says at start, on stderr, each problem with the standing of our egresses (blocklisted, reverse DNS,
 * HELO), with its fix: unlike the network's problems these do not stop verification, but providers
 * refuse or mark down what comes from such an address. Not waited for.
 */
export function warnAboutStanding(check: Promise<readonly EgressStanding[]> | undefined): void {
  check?.then(
    (standings) => {
      for (const problem of standingProblems(standings)) process.stderr.write(`mailverify: warning: ${problem}\n`);
    },
    () => undefined,
  );
}

/** `--standing-interval` > MAILVERIFY_STANDING_INTERVAL > 30m: how often the egresses' standing is checked; 0 turns it off. */
export function parseStandingIntervalMs(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  const raw = flag ?? (env.MAILVERIFY_STANDING_INTERVAL?.trim() || undefined);
  return raw === undefined ? DEFAULT_STANDING_INTERVAL_MS : durationMs(raw, '--standing-interval', 'or 0 to turn the check off');
}

export function parseLogLevel(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const level = (flag ?? env.MAILVERIFY_LOG_LEVEL ?? 'warn').trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return level;
}

/** `--lease-seconds` > MAILVERIFY_LEASE_SECONDS > 60, in milliseconds. */
export function parseLeaseMs(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  const fromEnv = env.MAILVERIFY_LEASE_SECONDS?.trim();
  const raw = flag ?? (fromEnv === '' ? undefined : fromEnv) ?? String(DEFAULT_LEASE_SECONDS);
  return integer(1, MAX_LEASE_SECONDS)(raw, '--lease-seconds') * 1_000;
}

/**
 * Resolves at the first SIGINT or SIGTERM. The handlers are removed then, so a second signal
 * ends the process the default way should the graceful close hang.
 */
export function firstShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const name of SHUTDOWN_SIGNALS) process.off(name, onSignal);
      resolve(signal);
    };
    for (const name of SHUTDOWN_SIGNALS) process.on(name, onSignal);
  });
}

/**
 * Waits for the stop signal, closes, then makes sure the process ends. The engine cannot be
 * cancelled: probes the job runner abandoned (open SMTP sessions, greylist retries due in a
 * minute) would otherwise keep the process alive long after the store is closed. Nothing is lost
 * by not waiting for them: their items have no stored result, their leases are released, and they
 * are verified again by whichever runner claims them, charged only once, at submission. This is
 * the one place the service ends the process itself.
 */
export async function runUntilSignal(
  shutdown: Promise<NodeJS.Signals>,
  running: { close(): Promise<void> } | Promise<{ close(): Promise<void> }>,
): Promise<void> {
  const signal = await shutdown;
  process.stderr.write(`mailverify: ${signal} received, shutting down\n`);
  const overdue = setTimeout(() => {
    process.stderr.write(`mailverify: still closing ${SHUTDOWN_GRACE_MS / 1000} s after the signal; exiting without waiting\n`);
    process.exit(ExitCode.failure);
  }, SHUTDOWN_GRACE_MS);
  try {
    // Still starting at the signal: closed as soon as it is up (within the same grace).
    await (await running).close();
  } finally {
    clearTimeout(overdue);
    // Runs after main() has set the exit code; unref'd, so an idle process simply ends first.
    setTimeout(() => process.exit(), 0).unref();
  }
}
