import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../../http/errors.js';

/**
 * Cross-site request forgery is refused twice over. Every form carries a token that only our own
 * pages know (the session's CSRF secret; before sign-in, a value also set in a cookie, so a
 * forger can neither read nor set it), and a request whose Origin (or, without one, whose
 * Sec-Fetch-Site) says another site sent it is refused before the token is even looked at. The
 * session cookie's SameSite=Lax keeps it off cross-site posts besides.
 */

export const CSRF_FIELD = '_csrf';

function sameToken(sent: unknown, expected: string): boolean {
  if (typeof sent !== 'string' || sent.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
}

function fromAnotherSite(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    try {
      return origin === 'null' || new URL(origin).host !== request.host;
    } catch {
      return true;
    }
  }
  const site = request.headers['sec-fetch-site'];
  return site !== undefined && site !== 'same-origin' && site !== 'none';
}

/** Throws a 403 unless the form was posted by one of our own pages with the expected token. */
export function checkCsrf(request: FastifyRequest, expected: string | undefined): void {
  const sent = (request.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  if (fromAnotherSite(request) || expected === undefined || !sameToken(sent, expected)) {
    throw new ProblemError('forbidden', 'This form was not sent from this dashboard (or it is too old): reload the page and try again.');
  }
}
