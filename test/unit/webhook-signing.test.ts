import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { afterAttempt, DEFAULT_RETRY_SCHEDULE_SECONDS, retrySchedule } from '../../src/server/webhooks/retry-schedule.js';
import { newEndpointSecret, signedHeaders } from '../../src/server/webhooks/signing.js';

describe('webhook signatures (Standard Webhooks 1.0)', () => {
  it("match the spec's own test vector", () => {
    const headers = signedHeaders(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      '{"test": 2432232314}',
      new Date(1614265330 * 1000),
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('are an HMAC-SHA256 of "id.timestamp.body" keyed with the secret\'s base64-decoded bytes, for new secrets too', () => {
    const secret = newEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const at = new Date('2026-11-21T12:00:00.500Z');
    const headers = signedHeaders(secret, 'msg_x', '{"a":1}', at);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`msg_x.${Math.floor(at.getTime() / 1000)}.{"a":1}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });
});

describe('the webhook retry schedule', () => {
  const middle = () => 0.5;

  it("tries again at the spec's waits, within ±10%, then gives up", () => {
    expect(DEFAULT_RETRY_SCHEDULE_SECONDS).toEqual([0, 5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400]);
    expect(afterAttempt(1, { status: 500 }, DEFAULT_RETRY_SCHEDULE_SECONDS, middle)).toEqual({ kind: 'retry', retryInMs: 5_000 });
    expect(afterAttempt(1, { status: null }, DEFAULT_RETRY_SCHEDULE_SECONDS, () => 0)).toEqual({ kind: 'retry', retryInMs: 4_500 });
    expect(afterAttempt(2, { status: 503 }, DEFAULT_RETRY_SCHEDULE_SECONDS, () => 1)).toEqual({ kind: 'retry', retryInMs: 330_000 });
    expect(afterAttempt(9, { status: 500 }, DEFAULT_RETRY_SCHEDULE_SECONDS, middle)).toEqual({ kind: 'retry', retryInMs: 86_400_000 });
    expect(afterAttempt(10, { status: 500 }, DEFAULT_RETRY_SCHEDULE_SECONDS, middle)).toEqual({ kind: 'failed' });
  });

  it('ends on 2xx, disables on 410, and honours Retry-After on 429, 502 and 504 only', () => {
    expect(afterAttempt(1, { status: 204 }, DEFAULT_RETRY_SCHEDULE_SECONDS)).toEqual({ kind: 'delivered' });
    expect(afterAttempt(3, { status: 410 }, DEFAULT_RETRY_SCHEDULE_SECONDS)).toEqual({ kind: 'disable' });
    for (const status of [429, 502, 504])
      expect(afterAttempt(1, { status, retryAfterSeconds: 60 }, DEFAULT_RETRY_SCHEDULE_SECONDS, middle)).toEqual({ kind: 'retry', retryInMs: 60_000 });
    expect(afterAttempt(1, { status: 503, retryAfterSeconds: 60 }, DEFAULT_RETRY_SCHEDULE_SECONDS, middle)).toEqual({ kind: 'retry', retryInMs: 5_000 });
    // Never sooner than the schedule, never later than a day.
    expect(afterAttempt(2, { status: 429, retryAfterSeconds: 1 }, DEFAULT_RETRY_SCHEDULE_SECONDS, middle)).toEqual({ kind: 'retry', retryInMs: 300_000 });
    expect(afterAttempt(1, { status: 429, retryAfterSeconds: 10 ** 9 }, DEFAULT_RETRY_SCHEDULE_SECONDS, middle)).toEqual({
      kind: 'retry',
      retryInMs: 86_400_000,
    });
  });

  it('is shortened for tests by MAILVERIFY_WEBHOOK_RETRY_SCHEDULE, and refuses a malformed one', () => {
    expect(retrySchedule({})).toBe(DEFAULT_RETRY_SCHEDULE_SECONDS);
    expect(retrySchedule({ MAILVERIFY_WEBHOOK_RETRY_SCHEDULE: '0,1,1' })).toEqual([0, 1, 1]);
    expect(() => retrySchedule({ MAILVERIFY_WEBHOOK_RETRY_SCHEDULE: '0,soon' })).toThrow(/comma-separated seconds/);
  });
});
