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

/** What a `RateLimit` field says (draft-ietf-httpapi-ratelimit-headers): requests left, and seconds until the window resets. */
export interface RateLimitState {
  remaining: number;
  resetSeconds: number;
}

/**
 * The first policy of a `RateLimit` field (`"default";r=0;t=3`), or undefined for a field that is
 * absent or unreadable: pacing by it is a courtesy, never a reason to fail a request.
 */
export function parseRateLimit(field: string | undefined): RateLimitState | undefined {
  const first = field?.split(',')[0];
  if (first === undefined) return undefined;
  const parameters = new Map(
    first
      .split(';')
      .slice(1)
      .map((part) => part.trim().split('=') as [string, string | undefined]),
  );
  const remaining = Number(parameters.get('r'));
  const resetSeconds = Number(parameters.get('t') ?? 0);
  if (!Number.isInteger(remaining) || remaining < 0 || !Number.isInteger(resetSeconds) || resetSeconds < 0) return undefined;
  return { remaining, resetSeconds };
}

/** A parameter of the first policy of a `RateLimit-Policy` field (`"default";q=20;w=1`): a whole number above 0, or undefined. */
function policyParameter(field: string | undefined, name: 'q' | 'w'): number | undefined {
  const value = Number(new RegExp(`;\\s*${name}=(\\d+)`).exec(field?.split(',')[0] ?? '')?.[1]);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The quota of the first policy of a `RateLimit-Policy` field (`"default";q=20;w=1`), or undefined. */
export const parseQuota = (field: string | undefined): number | undefined => policyParameter(field, 'q');

/** What a response said of the service's rate limit: its status, its `RateLimit` and `RateLimit-Policy` fields. */
export interface RateLimitFields {
  status: number;
  rateLimit: string | undefined;
  policy: string | undefined;
}

/** Paces requests by what the service says of its window, so that the next request is not the one it refuses. */
export interface ServerPacer {
  /**
   * Resolves when a request may go, counted as sent: at once while the window has room, else when it
   * resets. Call the answer's `done` with the response's fields (none when it failed) once it is known.
   */
  ready(signal?: AbortSignal): Promise<(fields?: RateLimitFields) => void>;
}

interface Clock {
  now: () => number;
  wait: (ms: number, signal?: AbortSignal) => Promise<unknown>;
}

const realClock: Clock = { now: Date.now, wait: (ms, signal) => sleep(ms, undefined, { signal }) };

/**
 * Slows down before the 429 rather than after it (docs/api.md "Limits and headers"). Each answer's
 * `RateLimit` says how many requests the window has left and when it resets; once none is left,
 * requests wait for the reset, after which the window has its quota (`RateLimit-Policy`) again.
 * Requests sent since an answer are counted here too, so several in flight do not overrun the last
 * one the window had; within one window the lowest count known wins (answers may come back out of
 * order). Before the first answer nothing is known: one request goes alone and its answer paces the
 * rest. A service that sends no `RateLimit` is not paced at all.
 */
export function createServerPacer(clock: Clock = realClock): ServerPacer {
  let quota: number | undefined;
  /** The policy's window (`w`), in ms: when the next window ends once this one has. */
  let windowMs: number | undefined;
  let remaining: number | undefined;
  let resetAt = 0;
  let unpaced = false;
  /** The request sent alone while nothing is known, settled when its answer is. */
  let probe: Promise<void> | undefined;
  /** Requests sent and not yet answered: an answer may not count them yet. */
  let inFlight = 0;

  /** Counts a request as sent; its `done` takes the answer's fields, once. */
  function sent(after: () => void = () => undefined): (fields?: RateLimitFields) => void {
    inFlight += 1;
    let answered = false;
    return (fields) => {
      if (answered) return;
      answered = true;
      if (fields) observe(fields);
      inFlight -= 1;
      after();
    };
  }

  function observe(fields: RateLimitFields): void {
    const state = parseRateLimit(fields.rateLimit);
    if (state === undefined) {
      // A success without the field: a service that does not say (an error before its rate limit, such as a 401, says nothing of it).
      if (fields.status >= 200 && fields.status < 300) unpaced = true;
      return;
    }
    quota = parseQuota(fields.policy) ?? quota;
    const seconds = policyParameter(fields.policy, 'w');
    if (seconds !== undefined) windowMs = seconds * 1_000;
    const at = clock.now() + state.resetSeconds * 1_000;
    // The other requests still in flight may reach the service after this one: counted as spent already.
    const left = Math.max(0, state.remaining - (inFlight - 1));
    // A reset well past the one known is a new window: its count replaces the old one's.
    remaining = at > resetAt + 500 || remaining === undefined ? left : Math.min(remaining, left);
    resetAt = Math.max(resetAt, at);
  }

  return {
    async ready(signal) {
      for (;;) {
        if (unpaced) return () => undefined;
        const now = clock.now();
        if (now >= resetAt && resetAt > 0) {
          // A new window with the whole quota, ending a window's length after the last (unknown without the policy's `w`).
          remaining = quota;
          if (windowMs === undefined) resetAt = 0;
          else while (resetAt <= now) resetAt += windowMs;
        }
        // Spent with no answer to say when the window resets (the service was away): ask alone again.
        if (remaining !== undefined && remaining <= 0 && resetAt === 0) remaining = undefined;
        if (remaining === undefined) {
          if (probe !== undefined) {
            await probe;
            continue;
          }
          let settle = () => undefined as void;
          probe = new Promise<void>((resolve) => (settle = resolve));
          // A probe that failed without an answer leaves the next request to find out.
          return sent(() => {
            probe = undefined;
            settle();
          });
        }
        if (remaining > 0) {
          remaining -= 1;
          return sent();
        }
        await clock.wait(resetAt - now, signal);
      }
    },
  };
}
