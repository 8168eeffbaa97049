import { engineFlags, resolvedEngineOptions, type EngineFlags } from '../options/engine-flags.js';
import type { Io } from '../output/io.js';
import type { ParsedCommand } from '../options/parsed-command.js';
import { serviceProcessFlags, type ServiceProcessFlags } from '../options/service-flags.js';
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

/** `worker`'s flags as given: checked with the environment as the worker starts. */
export interface WorkerOptions {
  flags: ServiceProcessFlags;
  engine: EngineFlags;
}

export function parse(parsed: ParsedCommand): WorkerOptions {
  return { flags: serviceProcessFlags(parsed.flags), engine: engineFlags(parsed) };
}

/** `mailverify worker`: a job runner without HTTP, on the store `serve` uses, until SIGINT or SIGTERM. */
export async function run({ flags, engine: given }: WorkerOptions, { env }: Io): Promise<void> {
  const engine = await resolvedEngineOptions(given, env);
  const logLevel = parseLogLevel(flags.logLevel, env);
  const leaseMs = parseLeaseMs(flags.leaseSeconds, env);
  const metrics = parseMetricsListener(flags, env);
  const policy = parseServicePolicy(flags, env);
  const shutdown = firstShutdownSignal();
  logStrayRejections();
  const standingIntervalMs = parseStandingIntervalMs(flags.standingInterval, env);
  const options = { ...(await storeLocationFrom(flags, env)), ...policy, engine, logLevel, leaseMs, metrics, standingIntervalMs };
  const { startWorker } = await import('../../server/worker.js');
  const worker = await startWorker(options).catch((error: unknown) => {
    throw storeUnavailable(error) ?? error;
  });
  // Tests and scripts wait for this line.
  process.stderr.write(`mailverify: worker running (pid ${process.pid}, leases of ${options.leaseMs / 1000} s)\n`);
  if (worker.metricsUrl) process.stderr.write(`mailverify: metrics on ${worker.metricsUrl}\n`);
  warnAboutNetwork(worker.networkChecked);
  warnAboutStanding(worker.standingChecked);
  await runUntilSignal(shutdown, worker);
}
