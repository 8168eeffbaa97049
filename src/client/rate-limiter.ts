import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves when the next request may start. */
export type RateLimiter = () => Promise<void>;

/**
 * At most `limit` request starts in any `windowMs`. The service counts requests per user in
 * fixed windows; a sliding window that never exceeds the limit can never exceed any fixed one,
 * so concurrent work stays under the limit instead of provoking 429s and backoff.
 */
export function createRateLimiter(
  limit: number,
  windowMs: number,
  clock: { now: () => number; wait: (ms: number) => Promise<unknown> } = { now: Date.now, wait: sleep },
  /** Told before each wait for the window to move on, with its length. */
  onWait?: (ms: number) => void,
): RateLimiter {
  const starts: number[] = [];
  // Callers are served one at a time, in order, so nobody is starved.
  let queue: Promise<void> = Promise.resolve();
  return () => {
    const turn = queue.then(async () => {
      for (;;) {
        const now = clock.now();
        while (starts.length > 0 && starts[0]! <= now - windowMs) starts.shift();
        if (starts.length < limit) {
          starts.push(now);
          return;
        }
        const wait = starts[0]! + windowMs - now;
        onWait?.(wait);
        await clock.wait(wait);
      }
    });
    queue = turn;
    return turn;
  };
}
