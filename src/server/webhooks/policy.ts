/**
 * What an install allows each account's webhooks (docs/operating.md "Webhook limits"; set alike on every node):
 * no account's endpoints or test events can grow the deliveries every account's events wait
 * behind, and what was delivered is kept only for a while.
 */
export interface WebhookPolicy {
  /** Endpoints may be on loopback and private networks (`--allow-private-webhooks`); link-local and metadata addresses never. */
  allowPrivateWebhooks: boolean;
  /** Endpoints an account may have at once (`--webhook-endpoints`); disabled ones count until removed. */
  maxEndpoints: number;
  /** `webhook.test` events an account may send per minute (`--webhook-tests-per-minute`). */
  testsPerMinute: number;
  /** How long settled deliveries and attempts are kept (`--webhook-retention`). */
  retentionMs: number;
}

export const DEFAULT_WEBHOOK_POLICY: WebhookPolicy = {
  allowPrivateWebhooks: false,
  maxEndpoints: 10,
  // A few to see a receiver work, not a stream: each test event may hold a delivery slot for 15 s.
  testsPerMinute: 5,
  retentionMs: 30 * 86_400_000,
};
