import type { FastifyReply } from 'fastify';
import { fixedWindow, rateLimited } from '../rate-limit.js';
import type { Store } from '../store/store.js';

/** Login attempts allowed per window: per address, against guessing one account's password... */
export const LOGIN_ATTEMPTS_PER_EMAIL = 10;
/** ...and per client IP, against trying many accounts; higher, as an office or CI fleet shares one address. */
export const LOGIN_ATTEMPTS_PER_IP = 30;
export const LOGIN_WINDOW_SECONDS = 60;

/**
 * Counts a login attempt (successful or not: counting before the password is checked leaves no
 * race for parallel guesses to slip through) against its address and its client IP, in the store
 * so that every instance shares the count. Throws the 429 once either is over its limit. Behind a
 * reverse proxy every client has the proxy's IP unless fastify is told to trust it.
 */
export async function countLoginAttempt(store: Store, email: string, ip: string, reply: FastifyReply, nowMs = Date.now()): Promise<void> {
  const { windowStart, resetSeconds } = fixedWindow(nowMs, LOGIN_WINDOW_SECONDS);
  const [byEmail, byIp] = await Promise.all([
    store.countLoginAttempt(`email:${email.toLowerCase()}`, windowStart),
    store.countLoginAttempt(`ip:${ip}`, windowStart),
  ]);
  if (byEmail > LOGIN_ATTEMPTS_PER_EMAIL || byIp > LOGIN_ATTEMPTS_PER_IP) {
    throw rateLimited(reply, resetSeconds, `Too many login attempts for this account or from this address; retry in ${resetSeconds} s.`);
  }
}
