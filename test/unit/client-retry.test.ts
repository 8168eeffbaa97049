import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/client/rate-limiter.js';
import { backoffDelay, withRetry, type RetryPolicy } from '../../src/client/retry.js';

const policy: RetryPolicy = { maxAttempts: 5, maxElapsedMs: 10_000, baseDelayMs: 100, maxDelayMs: 1_000 };

/** A clock that only moves when someone waits on it. */
function fakeClock() {
  let now = 0;
  const waits: number[] = [];
  return {
    now: () => now,
    wait: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
    waits,
  };
}

class Transient extends Error {
  constructor(readonly retryAfterMs?: number) {
    super('transient');
  }
}

describe('backoffDelay', () => {
  it('draws uniformly below a ceiling that doubles per attempt up to the cap (full jitter)', () => {
    expect(backoffDelay(1, policy, () => 0.999)).toBe(100);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(4, policy, () => 0)).toBe(0);
  });

  it('never waits less than the server asked for', () => {
    expect(backoffDelay(1, policy, () => 0.5, 3_000)).toBe(3_000);
  });
});

describe('withRetry', () => {
  const run = (failures: number, overrides: Partial<RetryPolicy> = {}, retryAfterMs?: number) => {
    const clock = fakeClock();
    let attempts = 0;
    const result = withRetry(
      async () => {
        attempts += 1;
        if (attempts <= failures) throw new Transient(retryAfterMs);
        return 'ok';
      },
      {
        policy: { ...policy, ...overrides },
        retryable: (error) => error instanceof Transient,
        requestedDelayMs: (error) => (error as Transient).retryAfterMs,
        now: clock.now,
        wait: clock.wait,
        random: () => 0.5,
      },
    );
    return { result, clock, attempts: () => attempts };
  };

  it('retries transient failures until one succeeds', async () => {
    const { result, clock, attempts } = run(2);
    await expect(result).resolves.toBe('ok');
    expect(attempts()).toBe(3);
    expect(clock.waits).toEqual([50, 100]);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const { result, attempts } = run(100);
    await expect(result).rejects.toBeInstanceOf(Transient);
    expect(attempts()).toBe(5);
  });

  it('gives up rather than start a wait that would end past maxElapsedMs', async () => {
    const { result, clock, attempts } = run(100, { maxAttempts: 100, maxElapsedMs: 2_500 }, 1_000);
    await expect(result).rejects.toBeInstanceOf(Transient);
    expect(attempts()).toBe(3);
    expect(clock.waits).toEqual([1_000, 1_000]);
  });

  it('does not retry what is not retryable', async () => {
    let attempts = 0;
    const failing = withRetry(
      async () => {
        attempts += 1;
        throw new Error('permanent');
      },
      { policy, retryable: (error) => error instanceof Transient, wait: async () => undefined },
    );
    await expect(failing).rejects.toThrow('permanent');
    expect(attempts).toBe(1);
  });
});

describe('createRateLimiter', () => {
  it('lets `limit` requests start per window and makes the next wait for the oldest to leave it', async () => {
    const clock = fakeClock();
    const acquire = createRateLimiter(3, 1_000, clock);
    const started: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      await acquire();
      started.push(clock.now());
    }
    expect(started).toEqual([0, 0, 0, 1_000, 1_000, 1_000, 2_000]);
  });

  it('serves concurrent callers in order without exceeding the limit', async () => {
    const clock = fakeClock();
    const acquire = createRateLimiter(2, 500, clock);
    const started: number[] = [];
    await Promise.all(Array.from({ length: 5 }, () => acquire().then(() => started.push(clock.now()))));
    expect(started).toEqual([0, 0, 500, 500, 1_000]);
  });
});
