import type { NetworkWatch } from '../../engine/index.js';
import type { DeviceFlowTimes } from '../auth/device-codes.js';
import type { JwtIssuer } from '../auth/jwt.js';
import type { HttpTimeouts } from '../http/server.js';
import type { TrustProxy } from '../http/trusted-proxies.js';
import type { LogSettings } from '../logging/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { SnsFetcher } from '../receivers/sns-fetcher.js';
import type { ServiceVerifier } from '../verifier/result-reuse.js';
import type { Store } from '../store/store.js';
import type { WebhookPolicy } from '../webhooks/policy.js';

/** What buildApp (app.ts) is given, and what each route file takes of it; kept beside the routes so they need not import the app that registers them. */
export interface AppConfig {
  store: Store;
  verifier: ServiceVerifier;
  /** Give back the token of every `unknown` result (`--refund-unknown`), not only those caused by our own network. */
  refundUnknown?: boolean;
  /** The engine's findings about its network, for /healthz and the log; none with a stand-in verifier. */
  network?: NetworkWatch;
  jwt: JwtIssuer;
  /** Told when a bulk job was created, so the job runner starts on it without polling. */
  onJobCreated: () => void;
  /** Where to log; no logging when not given. */
  log?: LogSettings;
  /** Where requests are counted and timed, when metrics are on. */
  metrics?: Pick<Metrics, 'http'>;
  /** What accounts' webhooks are allowed (private receivers, endpoints, test events); DEFAULT_WEBHOOK_POLICY when not given. */
  webhooks?: WebhookPolicy;
  /** The HTTP server's timeouts; HTTP_TIMEOUTS where not given. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /**
   * The reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (`--trust-proxy`):
   * their addresses (CIDR ranges too), with at most how many hops in front of us are ours. None when not given:
   * the headers then count for nothing, since any client can send them.
   */
  trustProxy?: TrustProxy;
  /** How old an account's evidence may be to decide a verdict (`--evidence-window`); DEFAULT_EVIDENCE_WINDOW_MS when not given. */
  evidenceWindowMs?: number;
  /** How SNS receivers fetch signing certificates and confirm subscriptions; undici to SNS's own hosts when not given (tests: a loopback SNS). */
  sns?: SnsFetcher;
  /** How long a device login may wait for approval and how often it polls; DEFAULT_DEVICE_FLOW_TIMES when not given. */
  deviceFlow?: DeviceFlowTimes;
}
