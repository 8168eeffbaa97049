import type { FastifyRequest } from 'fastify';
import type { SignedIn } from './sessions.js';

/** Who is signed in, on a page behind sign-in (the scope's onRequest hook has checked). */
export function signedIn(request: FastifyRequest): SignedIn {
  // A wiring bug, not a visitor's fault: answered as a bare 500.
  if (request.signedIn === null) throw new Error(`${request.url} is outside the signed-in scope`);
  return request.signedIn;
}
