import type { EgressStanding, NetworkStatus } from '../engine/index.js';
import type { EngineOptions } from '../engine/core/types.js';
import { buildApp } from './app.js';
import type { TrustProxy } from './http/trusted-proxies.js';
import { deviceFlowTimes } from './auth/device-codes.js';
import { createJwtIssuer } from './auth/jwt.js';
import type { HttpTimeouts } from './http/server.js';
import type { MetricsListener } from './metrics/listener.js';
import { listenForMetrics, openServiceParts, startPartsMaintenance, startRegisteredRunner, type MetricsAt, type ServicePolicy } from './service-parts.js';
import { afterStartUp } from './network/network-log.js';
import { startStandingWatch, type StandingWatch, type StandingWatchOptions } from './network/standing-watch.js';
import type { StoreLocation } from './store/open/open-store.js';

export interface ServerOptions extends StoreLocation, ServicePolicy, StandingWatchOptions {
  host: string;
  /** 0 picks a free port; the URL that was bound is returned. */
  port: number;
  engine: Partial<EngineOptions>;
  /** pino level for the logs on stderr ('silent' for none). */
  logLevel: string;
  /** The HTTP server's timeouts where not the defaults. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** The reverse proxies to believe (`--trust-proxy`), if any. */
  trustProxy?: TrustProxy;
  /** Run a job runner beside the API (`serve`), or the API alone (`serve --no-worker`, with `worker`s elsewhere). */
  worker: boolean;
  /** How long the runner's claims on work last unless renewed. */
  leaseMs: number;
  /** Where to serve /metrics, if anywhere (never the API's port). */
  metrics?: MetricsAt;
  /** Lists uploaded on the dashboard and never submitted are deleted this long after they were uploaded (`--upload-retention`; a day unless given). */
  uploadRetentionMs?: number;
}

/** `--upload-retention`'s default: a day to verify a list uploaded, and no longer kept for free. */
const DEFAULT_UPLOAD_RETENTION_MS = 24 * 3_600_000;

export interface RunningServer {
  url: string;
  /** The metrics listener's URL, when there is one. */
  metricsUrl?: string;
  /** What the engine finds of its network when asked at start (see VerifierContext.checkNetwork). */
  networkChecked: Promise<NetworkStatus>;
  /** The egresses' standing as checked at start; none when the watch is off (standing-watch.ts). */
  standingChecked?: Promise<EgressStanding[]>;
  /**
   * Stops taking requests, lets in-flight ones finish, stops the job runner and closes the store.
   * Engine work the runner abandoned may still hold the event loop afterwards (see `serve`).
   */
  close(): Promise<void>;
}

/**
 * `mailverify serve`: store, engine, job runner and HTTP app wired together and listening. On
 * start the runner resumes every job left unfinished by a crash or a stop. Without a runner
 * (`--no-worker`) the jobs created here are worked by `mailverify worker`s on the same store.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const parts = await openServiceParts(options);
  const { store, verifier, metrics, holder } = parts;
  const { refundUnknown } = options;
  let standing: StandingWatch | undefined;
  const jwt = await createJwtIssuer(await store.install.signingSecret());
  // Asked at once: what it finds is the start-up warning, which the log then does not repeat.
  const networkChecked = verifier.checkNetwork();
  const app = buildApp({
    store,
    verifier,
    network: afterStartUp(verifier.network, networkChecked),
    metrics,
    jwt,
    refundUnknown,
    // The runner logs through the app's logger, so it is made just below; no job can be created before it is.
    onJobCreated: () => runner?.wake(),
    log: { level: options.logLevel, stream: process.stderr },
    httpTimeouts: options.httpTimeouts,
    trustProxy: options.trustProxy,
    webhooks: options.webhooks,
    evidenceWindowMs: options.evidenceWindowMs,
    deviceFlow: deviceFlowTimes(process.env),
  });
  const runner = options.worker ? startRegisteredRunner(parts, { ...options, log: app.log }) : undefined;
  // The dashboard is served here, with or without a runner: so are its uploads' deletions.
  const uploadRetentionMs = options.uploadRetentionMs ?? DEFAULT_UPLOAD_RETENTION_MS;
  const maintenance = startPartsMaintenance(parts, { ...options, log: app.log, runner, uploadRetentionMs });
  let listener: MetricsListener | undefined;

  async function close(): Promise<void> {
    // Both at once: stop taking requests (those in flight are answered, idle keep-alive connections
    // closed) and stop claiming work (the results in hand are written, the leases released); then
    // the store, which neither touches any more. Engine work in flight is abandoned, to be
    // verified again by whichever runner claims it next.
    standing?.stop();
    const outcomes = await Promise.allSettled([app.close(), runner?.stop(), maintenance.stop(), listener?.close()]);
    await holder.leave();
    await store.close();
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  }
  try {
    const url = await app.listen({ host: options.host, port: options.port });
    listener = await listenForMetrics(metrics, options.metrics);
    standing = startStandingWatch(options.engine, options.standingIntervalMs, parts);
    return { url, metricsUrl: listener?.url, networkChecked, standingChecked: standing?.first, close };
  } catch (error) {
    await close();
    throw error;
  }
}
