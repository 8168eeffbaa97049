import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/output/errors.js';
import { parseServicePolicy } from '../../src/cli/local-service/service-policy.js';
import { DEFAULT_WEBHOOK_POLICY } from '../../src/server/webhooks/policy.js';

// What `serve` and `worker` read of webhooks and retention: flags over MAILVERIFY_ variables over the defaults.

describe('the webhook and retention flags of serve and worker', () => {
  it('default to private receivers refused, 10 endpoints, 5 test events a minute, 30 days of deliveries and finished jobs kept', () => {
    const policy = parseServicePolicy({}, {});
    expect(policy.webhooks).toEqual(DEFAULT_WEBHOOK_POLICY);
    expect(policy.webhooks).toEqual({ allowPrivateWebhooks: false, maxEndpoints: 10, testsPerMinute: 5, retentionMs: 30 * 86_400_000 });
    expect(policy.retentionMs).toBeUndefined();
  });

  it("opens private receivers only with their own flag or variable, never with the engine's", () => {
    expect(parseServicePolicy({}, { MAILVERIFY_ALLOW_PRIVATE_NETWORKS: '1' }).webhooks.allowPrivateWebhooks).toBe(false);
    expect(parseServicePolicy({ allowPrivateWebhooks: true }, {}).webhooks.allowPrivateWebhooks).toBe(true);
    expect(parseServicePolicy({}, { MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS: '1' }).webhooks.allowPrivateWebhooks).toBe(true);
    expect(parseServicePolicy({}, { MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS: '0' }).webhooks.allowPrivateWebhooks).toBe(false);
  });

  it('reads limits and retentions from flags before the environment', () => {
    const env = {
      MAILVERIFY_WEBHOOK_ENDPOINTS: '3',
      MAILVERIFY_WEBHOOK_TESTS_PER_MINUTE: '100',
      MAILVERIFY_WEBHOOK_RETENTION: '7d',
      MAILVERIFY_RETENTION: '12h',
    };
    expect(parseServicePolicy({}, env)).toMatchObject({
      webhooks: { maxEndpoints: 3, testsPerMinute: 100, retentionMs: 7 * 86_400_000 },
      retentionMs: 12 * 3_600_000,
    });
    expect(parseServicePolicy({ webhookEndpoints: '20', retention: '30d' }, env)).toMatchObject({
      webhooks: { maxEndpoints: 20 },
      retentionMs: 30 * 86_400_000,
    });
    // 0 keeps finished jobs, as no flag does.
    expect(parseServicePolicy({ retention: '0' }, env).retentionMs).toBeUndefined();
  });

  it('refuses what is no count or duration, naming the flag', () => {
    expect(() => parseServicePolicy({ webhookEndpoints: '0' }, {})).toThrow(/--webhook-endpoints/);
    expect(() => parseServicePolicy({ webhookTestsPerMinute: 'many' }, {})).toThrow(/--webhook-tests-per-minute/);
    expect(() => parseServicePolicy({ retention: '30 days' }, {})).toThrow(UsageError);
    expect(() => parseServicePolicy({}, { MAILVERIFY_WEBHOOK_RETENTION: 'soon' })).toThrow(/--webhook-retention/);
  });
});
