import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../rate-limit.js';
import { errorResponses } from '../schemas/problem.js';
import type { Authenticator, Caller } from './authenticate.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, on routes inside the guarded scope; read it with currentUser(). */
    user: Caller | null;
  }
}

/** Name of the bearer scheme in the OpenAPI document. */
export const BEARER_SCHEME = 'bearer';

/**
 * Makes every route registered in `scope` authenticated and rate limited, before its body is even
 * parsed, and documents that in its schema (the bearer requirement, 401 and 429).
 */
export function guardScope(scope: FastifyInstance, authenticator: Authenticator, limiter: RateLimiter): void {
  scope.decorateRequest('user', null);
  scope.addHook('onRoute', (route) => {
    const schema = route.schema ?? {};
    // `security` is for the OpenAPI document only; fastify ignores keys it does not know.
    const documented = {
      ...schema,
      security: [{ [BEARER_SCHEME]: [] }],
      response: { ...(schema.response as object | undefined), ...errorResponses('unauthorized', 'rate_limited') },
    };
    route.schema = documented;
  });
  scope.addHook('onRequest', async (request, reply) => {
    const caller = await authenticator.authenticate(request.headers.authorization);
    await limiter.admit(caller, reply);
    request.user = caller;
  });
}

/** The authenticated caller of a route inside the guarded scope. */
export function currentUser(request: FastifyRequest): Caller {
  // A wiring bug, not a client's fault: a plain error is logged and answered as a bare 500.
  if (request.user === null) throw new Error(`${request.url} is outside the authenticated scope`);
  return request.user;
}
