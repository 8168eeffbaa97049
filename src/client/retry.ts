import { setTimeout as sleep } from 'node:timers/promises';

/** How hard to try: bounded both in attempts and in total time, so a script never hangs on a sick service. */
export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** No retry is started that would end after this long since the first attempt began. */
  maxElapsedMs: number;
  /** Ceiling of the first backoff; it doubles with every attempt up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  maxElapsedMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

export interface RetryOptions {
  policy: RetryPolicy;
  /** Whether this failure is worth another attempt. */
  retryable: (error: unknown) => boolean;
  /** A delay the server asked for (`Retry-After`), which the backoff never undercuts. */
  requestedDelayMs?: (error: unknown) => number | undefined;
  /** Told before every wait, for `--debug`. */
  onRetry?: (error: unknown, delayMs: number, attempt: number) => void;
  signal?: AbortSignal;
  /** Injected by unit tests; the real clock, randomness and timers otherwise. */
  now?: () => number;
  random?: () => number;
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Exponential backoff with full jitter (a uniformly random wait below a doubling ceiling, so that
 * many clients failing together do not come back together), never shorter than what the server
 * asked for.
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number, requestedMs = 0): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.max(requestedMs, Math.round(random() * ceiling));
}

const realWait = (ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }).then(() => undefined);

/** Runs `attempt` until it succeeds, fails for good, or the policy's attempts or time run out; then throws the last error. */
export async function withRetry<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { policy, retryable, requestedDelayMs, onRetry, signal } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const wait = options.wait ?? realWait;
  const started = now();
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!retryable(error) || attemptNumber >= policy.maxAttempts) throw error;
      const delayMs = backoffDelay(attemptNumber, policy, random, requestedDelayMs?.(error));
      if (now() - started + delayMs > policy.maxElapsedMs) throw error;
      onRetry?.(error, delayMs, attemptNumber);
      await wait(delayMs, signal);
    }
  }
}
