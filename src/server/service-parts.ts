import type { WatchedVerifier } from '../engine/index.js';
import type { EngineOptions, Verifier } from '../engine/types.js';
import { speakingToApiUsers } from './api-user-reasons.js';
import { startJobRunner, type JobRunner, type JobRunnerLog } from './jobs/runner.js';
import { instrumentStore } from './metrics/instrument-store.js';
import { startMetricsListener, type MetricsListener } from './metrics/listener.js';
import { Metrics } from './metrics/metrics.js';
import { openStore, type StoreLocation } from './store/open-store.js';
import type { Holder, Store } from './store/store.js';

/** Where the metrics listener goes (`--metrics-host`/`--metrics-port`); none when not given. */
export interface MetricsAt {
  host: string;
  port: number;
}

/** The store, with every call measured when metrics are on, and the engine, watched likewise: what `serve` and `worker` both start from. */
export async function openServiceParts(
  options: StoreLocation & { engine: Partial<EngineOptions>; metrics?: MetricsAt },
): Promise<{ store: Store; verifier: WatchedVerifier; metrics?: Metrics }> {
  const metrics = options.metrics ? new Metrics() : undefined;
  const opened = await openStore(options);
  const store = metrics ? instrumentStore(opened, metrics) : opened;
  const { createVerifier } = await import('../engine/index.js');
  const verifier = speakingToApiUsers(createVerifier(options.engine, metrics?.smtp));
  if (metrics) {
    metrics.watchNetwork(verifier.network);
    metrics.watchQueue(store.work);
  }
  return { store, verifier, metrics };
}

/** A job runner registered as a holder, so that its leases are taken over at once should this process die. */
export async function startRegisteredRunner(
  store: Store,
  options: { verifier: Verifier; log: JobRunnerLog; leaseMs: number; metrics?: Metrics },
): Promise<{ runner: JobRunner; holder: Holder }> {
  const holder = await store.holders.join();
  const runner = startJobRunner({ queue: store.work, holder: holder.id, verifier: options.verifier, log: options.log, leaseMs: options.leaseMs, metrics: options.metrics?.runner });
  return { runner, holder };
}

/** Starts the metrics listener when asked for; tests and scripts read its URL from the line the CLI prints. */
export async function listenForMetrics(metrics: Metrics | undefined, at: MetricsAt | undefined): Promise<MetricsListener | undefined> {
  return metrics && at ? startMetricsListener(metrics, at.host, at.port) : undefined;
}
