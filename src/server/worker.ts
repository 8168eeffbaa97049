import type { NetworkStatus } from '../engine/index.js';
import type { EngineOptions } from '../engine/types.js';
import { logNetworkChanges } from './network-log.js';
import { listenForMetrics, openServiceParts, startRegisteredRunner, type MetricsAt, type ServicePolicy } from './service-parts.js';
import type { StoreLocation } from './store/open-store.js';

export interface WorkerOptions extends StoreLocation, ServicePolicy {
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
  const stopLogging = logNetworkChanges(verifier.network, log);
  const runner = startRegisteredRunner(parts, { log, leaseMs: options.leaseMs, refundUnknown: options.refundUnknown, allowPrivateNetworks: options.engine.allowPrivateNetworks ?? false });
  const listener = await listenForMetrics(metrics, options.metrics);
  return {
    metricsUrl: listener?.url,
    networkChecked: verifier.checkNetwork(),
    async close() {
      try {
        stopLogging();
        await Promise.all([runner.stop(), listener?.close()]);
        await holder.leave();
      } finally {
        await store.close();
      }
    },
  };
}
