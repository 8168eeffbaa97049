import type { FastifyReply } from 'fastify';
import type { Store, User } from './store/store.js';
import { ProblemError } from './errors.js';

/**
 * Per-user fixed-window rate limiting (DESIGN.md §2). The count lives in the store, not in this
 * process, so several service instances share one budget per user. Every authenticated response
 * says where the caller stands (`RateLimit-*`, reset as delta seconds); a 429 adds `Retry-After`.
 */
export function enforceRateLimit(store: Store, user: User, reply: FastifyReply, nowMs = Date.now()): void {
  const window = user.rateWindowSeconds;
  const now = nowMs / 1000;
  const windowStart = Math.floor(now / window) * window;
  const count = store.countRequest(user.id, windowStart);
  const resetSeconds = Math.max(1, Math.ceil(windowStart + window - now));
  reply.header('RateLimit-Limit', user.rateLimit);
  reply.header('RateLimit-Remaining', Math.max(0, user.rateLimit - count));
  reply.header('RateLimit-Reset', resetSeconds);
  if (count > user.rateLimit) {
    reply.header('Retry-After', resetSeconds);
    throw new ProblemError('rate_limited', `At most ${user.rateLimit} requests per ${window} s; retry in ${resetSeconds} s.`);
  }
}
