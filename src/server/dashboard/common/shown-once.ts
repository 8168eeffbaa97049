import type { FastifyReply, FastifyRequest } from 'fastify';
import { seal, unseal } from './sealed.js';
import { cookieValue, setCookie } from './sessions.js';
import { signedIn } from './signed-in.js';

/**
 * A secret the page after a form's redirect shows once (a new API token, a new webhook secret):
 * sealed under the session's key in a short-lived cookie for that page's path, and cleared in the
 * same answer that shows it, so that a reload shows it no more and the form is not posted again.
 */
const SHOWN_ONCE_SECONDS = 120;

export function keepForNextPage(request: FastifyRequest, reply: FastifyReply, where: { cookie: string; path: string }, value: object): void {
  const sealed = seal(signedIn(request).session.csrfSecret, JSON.stringify(value));
  setCookie(request, reply, { name: where.cookie, value: sealed, path: where.path, maxAge: SHOWN_ONCE_SECONDS, sameSite: 'strict' });
}

export function takeFromLastPage<T>(request: FastifyRequest, reply: FastifyReply, where: { cookie: string; path: string }): T | null {
  const sealed = cookieValue(request, where.cookie);
  if (sealed === undefined) return null;
  setCookie(request, reply, { name: where.cookie, value: '', path: where.path, maxAge: 0 });
  const opened = unseal(signedIn(request).session.csrfSecret, sealed);
  return opened === undefined ? null : (JSON.parse(opened) as T);
}
