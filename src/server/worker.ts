import type { EgressStanding, NetworkStatus } from '../engine/index.js';
import type { EngineOptions } from '../engine/core/types.js';
import { afterStartUp, logNetworkChanges } from './network/network-log.js';
import { listenForMetrics, openServiceParts, startPartsMaintenance, startRegisteredRunner, type MetricsAt, type ServicePolicy } from './service-parts.js';
import { startStandingWatch, type StandingWatchOptions } from './network/standing-watch.js';
import type { StoreLocation } from './store/open/open-store.js';

export interface WorkerOptions extends StoreLocation, ServicePolicy, StandingWatchOptions {
  engine: Partial<EngineOptions>;
  /** How long a claim on work lasts unless renewed. */
  leaseMs: number;
  /** pino level for the logs on stderr ('silent' for none). */
  logLevel: string;
  /** Where to serve /metrics, if anywhere. */
  metrics?: MetricsAt;
}

export interface RunningWorker {
  /** The metrics listener's URL, when there is one. */
  metricsUrl?: string;
  /** What the engine finds of its network when asked at start (see VerifierContext.checkNetwork). */
  networkChecked: Promise<NetworkStatus>;
  /** The egresses' standing as checked at start; none when the watch is off (standing-watch.ts). */
  standingChecked?: Promise<EgressStanding[]>;
  /** Stops claiming work, writes the results in hand, releases its leases and closes the store. */
  close(): Promise<void>;
}

/**
 * `mailverify worker`: the store, the engine and a job runner, no HTTP. Any number of these (and
 * of `serve`) share the work of one store through leases.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const parts = await openServiceParts(options);
  const { store, verifier, metrics, log, holder } = parts;
  // What the start-up check finds is the start-up warning, which the log then does not repeat.
  const networkChecked = verifier.checkNetwork();
  const stopLogging = logNetworkChanges(afterStartUp(verifier.network, networkChecked), log);
  const runner = startRegisteredRunner(parts, { ...options, log });
  const maintenance = startPartsMaintenance(parts, { ...options, log, runner });
  const listener = await listenForMetrics(metrics, options.metrics);
  const standing = startStandingWatch(options.engine, options.standingIntervalMs, parts);
  return {
    metricsUrl: listener?.url,
    networkChecked,
    standingChecked: standing?.first,
    async close() {
      try {
        stopLogging();
        standing?.stop();
        await Promise.all([runner.stop(), maintenance.stop(), listener?.close()]);
        await holder.leave();
      } finally {
        await store.close();
      }
    },
  };
}
