import type { Authenticator } from '../../auth/authenticate.js';
import type { CredentialCheck } from '../../auth/credentials.js';
import type { RateLimiter } from '../../auth/rate-limit.js';
import type { ServiceVerifier } from '../../verifier/result-reuse.js';
import type { Store } from '../../store/store.js';
import type { WebhookPolicy } from '../../webhooks/policy.js';

/** What the dashboard's pages are given: the service's own parts, shared with the API routes. */
export interface DashboardConfig {
  store: Store;
  verifier: ServiceVerifier;
  /** As the API's (AppConfig.refundUnknown). */
  refundUnknown?: boolean;
  authenticator: Authenticator;
  checkCredentials: CredentialCheck;
  limiter: RateLimiter;
  onJobCreated: () => void;
  /** What accounts' webhooks are allowed (see AppConfig). */
  webhooks?: WebhookPolicy;
}
