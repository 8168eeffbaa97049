import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimiter } from './rate-limit.js';
import { errorResponses } from '../schemas/problem.js';
import type { Access, Authenticator, Caller } from './authenticate.js';
import { checkScope, routeScope } from './scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, on routes inside the guarded scope; read it with currentUser(). */
    user: Caller | null;
    /** The token the caller came with and what it may do; read it with currentAccess(). */
    access: Access | null;
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
  scope.decorateRequest('access', null);
  scope.addHook('onRoute', (route) => {
    const schema = route.schema ?? {};
    const needed = routeScope([route.method].flat()[0]!, route.url);
    // `security` is for the OpenAPI document only (3.1 lets a bearer scheme list the scopes it needs);
    // fastify ignores keys it does not know.
    const documented = {
      ...schema,
      security: [{ [BEARER_SCHEME]: needed === null ? [] : [needed] }],
      response: {
        ...(schema.response as object | undefined),
        ...errorResponses('unauthorized', 'rate_limited', ...(needed === null ? [] : ['insufficient_scope' as const])),
      },
    };
    route.schema = documented;
  });
  scope.addHook('onRequest', async (request, reply) => {
    const { caller, access } = await authenticator.authenticate(request.headers.authorization);
    await limiter.admit(caller, reply);
    checkScope(access, routeScope(request.method, request.routeOptions.url ?? request.url));
    request.user = caller;
    request.access = access;
  });
}

/** The authenticated caller of a route inside the guarded scope. */
export function currentUser(request: FastifyRequest): Caller {
  // A wiring bug, not a client's fault: a plain error is logged and answered as a bare 500.
  if (request.user === null) throw new Error(`${request.url} is outside the authenticated scope`);
  return request.user;
}

/** The token of a request inside the guarded scope: its kind, scopes and expiry. */
export function currentAccess(request: FastifyRequest): Access {
  if (request.access === null) throw new Error(`${request.url} is outside the authenticated scope`);
  return request.access;
}
