import type { FastifyReply } from 'fastify';
import type { Caller } from './authenticate.js';
import type { LimitStore } from '../store/store.js';
import { ProblemError } from '../http/errors.js';

/** The fixed window `nowMs` falls in: its start (epoch seconds) and the whole seconds left until it ends (at least 1). */
export function fixedWindow(nowMs: number, windowSeconds: number): { windowStart: number; resetSeconds: number } {
  const now = nowMs / 1000;
  const windowStart = Math.floor(now / windowSeconds) * windowSeconds;
  return { windowStart, resetSeconds: Math.max(1, Math.ceil(windowStart + windowSeconds - now)) };
}

/** The one quota policy every user has: its name in `RateLimit-Policy` and `RateLimit`. */
const POLICY = 'default';

/**
 * The rate-limit fields of the IETF httpapi draft (draft-ietf-httpapi-ratelimit-headers, docs/api.md
 * "Limits and headers"): the policy, `q` requests per `w` seconds, and where the window stands, `r`
 * requests remaining until it resets in `t` seconds. Both are structured-field lists of one member,
 * the policy's name a quoted string. The three fields of the earlier drafts go beside them, for clients of those.
 */
export function rateLimitFields(limit: number, windowSeconds: number, remaining: number, resetSeconds: number): Record<string, string | number> {
  return {
    'RateLimit-Policy': `"${POLICY}";q=${limit};w=${windowSeconds}`,
    RateLimit: `"${POLICY}";r=${remaining};t=${resetSeconds}`,
    'RateLimit-Limit': limit,
    'RateLimit-Remaining': remaining,
    'RateLimit-Reset': resetSeconds,
  };
}

/** The 429 of docs/api.md, answered with `Retry-After`. */
export function rateLimited(resetSeconds: number, detail: string): ProblemError {
  return new ProblemError('rate_limited', detail, {}, resetSeconds);
}

/**
 * An instance reserves up to this share of a user's limit from the store at once. 1/20 keeps a
 * user at the default 20 per second on one store write per request, exactly as if every request
 * were counted there, while a user allowed thousands a second costs one write per twentieth.
 */
const RESERVATION_SHARE = 20;

/** This instance's reservations in one user's current window. */
interface Reservation {
  windowStart: number;
  /** Requests counted in the store (by every instance) as of our latest reservation, at most the limit. */
  counted: number;
  /** Requests our reservations got within the limit that no request has used yet. */
  unused: number;
  /** The store refused part of a reservation: the window is full, for every instance, until it ends. */
  full: boolean;
}

export interface RateLimiter {
  /** Counts the request against its user's window and sets `RateLimit-Policy` and `RateLimit`; throws the 429 when the window is full. */
  admit(caller: Caller, reply: FastifyReply, nowMs?: number): Promise<void>;
}

/**
 * Per-user fixed-window rate limiting (docs/api.md), counted in the store so that several
 * instances share one budget per user. Rather than write each request there, an instance
 * reserves a slice of the window's budget (RESERVATION_SHARE) and spends it locally, so the sum
 * over instances can never pass the limit. The price: a slice one instance holds unused is not
 * available to another in that window, so with several instances a user may be refused up to
 * (instances - 1) slices early. `RateLimit-Remaining` is what this instance knows: exact with
 * one instance. Reservations live for their window only; one small entry per active user.
 *
 * Reserving takes a trip to the store, during which other requests of the user may find the
 * slice empty too: each then reserves its own, and every reservation adds to what the window
 * holds (nothing is overwritten), so what the store granted is never lost or spent twice.
 */
export function createRateLimiter(limits: LimitStore): RateLimiter {
  const reservations = new Map<number, Reservation>();

  async function reserve(caller: Caller, reservation: Reservation): Promise<void> {
    const wanted = Math.max(1, Math.floor(caller.rateLimit / RESERVATION_SHARE));
    const total = await limits.reserveRequests(caller.id, reservation.windowStart, wanted);
    const granted = Math.max(0, Math.min(wanted, caller.rateLimit - (total - wanted)));
    reservation.counted = Math.max(reservation.counted, Math.min(total, caller.rateLimit));
    reservation.unused += granted;
    if (granted < wanted) reservation.full = true;
  }

  return {
    async admit(caller, reply, nowMs = Date.now()) {
      const { windowStart, resetSeconds } = fixedWindow(nowMs, caller.rateWindowSeconds);
      let reservation = reservations.get(caller.id);
      if (reservation?.windowStart !== windowStart) {
        reservation = { windowStart, counted: 0, unused: 0, full: false };
        reservations.set(caller.id, reservation);
      }
      if (reservation.unused === 0 && !reservation.full) await reserve(caller, reservation);
      const admitted = reservation.unused > 0;
      if (admitted) reservation.unused--;
      const used = reservation.counted - reservation.unused;
      reply.headers(rateLimitFields(caller.rateLimit, caller.rateWindowSeconds, Math.max(0, caller.rateLimit - used), resetSeconds));
      if (!admitted) {
        throw rateLimited(resetSeconds, `At most ${caller.rateLimit} requests per ${caller.rateWindowSeconds} s; retry in ${resetSeconds} s.`);
      }
    },
  };
}
