import { createHash, randomBytes } from 'node:crypto';
import { parseCookie, stringifySetCookie, type SetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardSession, Store, User } from '../../store/store.js';

/**
 * Dashboard sign-in sessions. The cookie holds 32 random bytes; the store holds only their
 * SHA-256 (a leaked database opens no session) with the user, the expiry and the CSRF secret, so
 * that any service instance on the store serves any signed-in user, and signing out ends the
 * session everywhere at once.
 */

const SESSION_COOKIE = 'mv_session';
/** A session lasts a working day from sign-in; then the user signs in again. */
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface SignedIn {
  user: User;
  session: DashboardSession;
}

function sessionIdHash(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex');
}

export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function cookieValue(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : parseCookie(header)[name];
}

/**
 * The name of a cookie that must come from this host alone: under https with the `__Host-` prefix,
 * which browsers accept only Secure, for the path `/` and without a Domain, so that no other host
 * (a sibling subdomain, a plain-http page) can set or overwrite it. Plain http (a service on
 * loopback, no proxy) keeps the bare name, which browsers would refuse with the prefix.
 */
export function hostCookie(request: FastifyRequest, name: string): string {
  return request.protocol === 'https' ? `__Host-${name}` : name;
}

/** HttpOnly and SameSite=Lax always; Secure when the page was reached over https (behind a proxy, only with `--trust-proxy`). */
export function setCookie(request: FastifyRequest, reply: FastifyReply, cookie: SetCookie): void {
  const attributes: SetCookie = { path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', ...cookie };
  reply.header('set-cookie', stringifySetCookie(attributes));
}

export async function startSession(store: Store, request: FastifyRequest, reply: FastifyReply, userId: number): Promise<void> {
  const sessionId = randomSecret();
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await store.dashboard.createSession({ idHash: sessionIdHash(sessionId), userId, csrfSecret: randomSecret(), expiresAt });
  setCookie(request, reply, { name: hostCookie(request, SESSION_COOKIE), value: sessionId, expires: expiresAt });
}

/** The signed-in user of a request, or undefined for no, an unknown or an expired session. */
export async function signedInUser(store: Store, request: FastifyRequest): Promise<SignedIn | undefined> {
  const sessionId = cookieValue(request, hostCookie(request, SESSION_COOKIE));
  if (sessionId === undefined || sessionId === '') return undefined;
  const session = await store.dashboard.findSession(sessionIdHash(sessionId));
  const user = session && (await store.accounts.findUserById(session.userId));
  return user && session ? { user, session } : undefined;
}

/** Deletes the session in the store (the old cookie opens nothing any more) and in the browser. */
export async function endSession(store: Store, request: FastifyRequest, reply: FastifyReply, session: DashboardSession): Promise<void> {
  await store.dashboard.deleteSession(session.idHash);
  setCookie(request, reply, { name: hostCookie(request, SESSION_COOKIE), value: '', expires: new Date(0) });
}
