import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Verifier } from '../engine/types.js';
import { createAuthenticator } from './auth/authenticate.js';
import { guardScope } from './auth/guard.js';
import type { JwtIssuer } from './auth/jwt.js';
import { handleError, handleNotFound } from './errors.js';
import { accountRoutes } from './routes/account.js';
import { authRoutes } from './routes/auth.js';
import { bulkRoutes } from './routes/bulk.js';
import { healthRoutes } from './routes/health.js';
import { openApiRoutes, recordRoutes } from './routes/openapi.js';
import { tokenRoutes } from './routes/tokens.js';
import { verifyRoutes } from './routes/verify.js';
import type { Store } from './store/store.js';

/** DESIGN.md §2: the largest request body accepted (→ 413 beyond). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface AppConfig {
  store: Store;
  verifier: Verifier;
  jwt: JwtIssuer;
  /** Told when a bulk job was created, so the job runner starts on it without polling. */
  onJobCreated: () => void;
  /** fastify's logger option; off when not given. */
  logger?: FastifyServerOptions['logger'];
}

/**
 * The HTTP service as a fastify instance, ready to `listen` or `inject`; building it opens nothing.
 * Routes outside the guarded scope (login, health, OpenAPI) need no token.
 */
export function buildApp(config: AppConfig): FastifyInstance {
  const app = Fastify({
    logger: config.logger ?? false,
    bodyLimit: MAX_BODY_BYTES,
    // Coercion would turn `{"email": 42}` into "42": a mistyped field must be a 400 instead.
    ajv: { customOptions: { coerceTypes: false } },
    // Errors met before routing (a malformed URL, an over-long id) get the same problem+json body.
    frameworkErrors: handleError,
  });
  // Bodies are JSON only: without this, fastify's built-in text/plain parser would turn a wrong
  // content type into a confusing 400 instead of the 415 it is.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  const routes = recordRoutes(app);

  healthRoutes(app);
  openApiRoutes(app, routes);
  authRoutes(app, config);
  app.register(async (scope) => {
    guardScope(scope, createAuthenticator(config.store, config.jwt), config.store);
    verifyRoutes(scope, config);
    bulkRoutes(scope, config);
    tokenRoutes(scope, config);
    accountRoutes(scope);
  });
  return app;
}
