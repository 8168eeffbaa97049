/**
 * What the CLI reads `serve`'s and `worker`'s flags with before anything starts: the service's
 * defaults, the words its settings take, and how it words a problem with the network. Kept to
 * constants, wording and types (nothing here opens or starts anything), so that a usage error is
 * said without loading the service, and the CLI never reaches into the service's parts.
 */
export { LOG_LEVELS } from './logging/logger.js';
export { DEFAULT_LEASE_SECONDS } from './jobs/runner.js';
export { networkProblems, UNTIL_FIXED } from './network/network-log.js';
export { DEFAULT_STANDING_INTERVAL_MS, standingProblems } from './network/standing-watch.js';
export { DEFAULT_FRESHNESS, MAX_CACHED_RESULTS, type Freshness } from './verifier/result-reuse.js';
export { DEFAULT_EVIDENCE_WINDOW_MS } from './verifier/evidence-window.js';
export { DEFAULT_WEBHOOK_POLICY, type WebhookPolicy } from './webhooks/policy.js';
export type { ServicePolicy } from './service-parts.js';
export type { HttpTimeouts } from './http/server.js';
export type { TrustProxy } from './http/trusted-proxies.js';
