import pino from 'pino';
import type { EngineOptions } from '../engine/types.js';
import { startJobRunner } from './jobs/runner.js';
import { logNetworkChanges } from './network-log.js';
import { openStore, type StoreLocation } from './store/open-store.js';

export interface WorkerOptions extends StoreLocation {
  engine: Partial<EngineOptions>;
  /** How long a claim on work lasts unless renewed. */
  leaseMs: number;
  /** pino level for the logs on stderr ('silent' for none). */
  logLevel: string;
}

export interface RunningWorker {
  /** Stops claiming work, writes the results in hand, releases its leases and closes the store. */
  close(): Promise<void>;
}

/**
 * `mailverify worker`: the store, the engine and a job runner, no HTTP. Any number of these (and
 * of `serve`) share the work of one store through leases.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const store = await openStore(options);
  const { createVerifier } = await import('../engine/index.js');
  const log = pino({ level: options.logLevel }, process.stderr);
  const verifier = createVerifier(options.engine);
  const stopLogging = logNetworkChanges(verifier.network, log);
  const runner = startJobRunner({ queue: store.work, verifier, log, leaseMs: options.leaseMs });
  return {
    async close() {
      try {
        stopLogging();
        await runner.stop();
      } finally {
        await store.close();
      }
    },
  };
}
