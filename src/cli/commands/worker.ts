import type { Command } from 'commander';
import { engineFlags, resolvedEngineOptions } from '../engine-flags.js';
import { parsedCommand } from '../parsed-command.js';
import { firstShutdownSignal, logStrayRejections, parseLeaseMs, parseLogLevel, parseMetricsListener, parseStandingIntervalMs, runUntilSignal, warnAboutNetwork, warnAboutStanding } from '../service-process.js';
import { parseServicePolicy, type PolicyFlags } from '../service-policy.js';
import { storeLocationFrom, storeUnavailable, type StoreFlags } from '../store-location.js';

interface WorkerFlags extends StoreFlags, PolicyFlags {
  logLevel?: string;
  leaseSeconds?: string;
  metricsPort?: string;
  metricsHost?: string;
  standingInterval?: string;
}

/** `mailverify worker`: a job runner without HTTP, on the store `serve` uses, until SIGINT or SIGTERM. */
export async function runWorker(command: Command, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const flags = command.opts<WorkerFlags>();
  const engine = await resolvedEngineOptions(engineFlags(parsedCommand([], command)), env);
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
  warnAboutNetwork(worker.networkChecked, logLevel);
  warnAboutStanding(worker.standingChecked);
  await runUntilSignal(shutdown, worker);
}
