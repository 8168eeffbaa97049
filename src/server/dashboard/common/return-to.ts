import type { FastifyRequest } from 'fastify';

/**
 * Where sign-in leads back to: a page asked for while signed out (the device approval link a
 * terminal printed, most of all) is shown once the visitor has signed in. Only a path of this
 * dashboard is followed, never another site (an open redirect would lend phishing our address).
 */

export const MAX_RETURN_PATH = 2_048;

/** The path to go to after sign-in: `next` when it is a path here, else the overview. */
export function returnPath(next: string | undefined): string {
  if (next === undefined || next.length > MAX_RETURN_PATH) return '/';
  // One slash then not a second one or a backslash (`//host` and `/\host` are other sites to a browser), and nothing unprintable.
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/';
}

/** The sign-in page for a signed-out request: leading back to the page it asked for when that is a page to show. */
export function signInFor(request: FastifyRequest): string {
  const wanted = request.url;
  const back = request.method === 'GET' && wanted !== '/' && returnPath(wanted) === wanted;
  return back ? `/sign-in?next=${encodeURIComponent(wanted)}` : '/sign-in';
}
