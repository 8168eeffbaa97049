import Fastify, { type FastifyInstance } from 'fastify';
import type { AppConfig } from './routes/app-config.js';
import { createAuthenticator } from './auth/authenticate.js';
import { createCredentialCheck } from './auth/credentials.js';
import { guardScope } from './auth/guard.js';
import { dashboardRoutes } from './dashboard/plugin.js';
import { handleError, notFoundHandler } from './http/errors.js';
import { clientErrorHandler, httpServerFactory, HTTP_TIMEOUTS } from './http/server.js';
import { acceptOnlyJsonBodies } from './http/json-body.js';
import { trustedProxies } from './http/trusted-proxies.js';
import { loggerOptions } from './logging/logger.js';
import { logNetworkChanges } from './network/network-log.js';
import { createRateLimiter } from './auth/rate-limit.js';
import { refuseTokensInQuery } from './auth/secrets.js';
import { accountRoutes } from './routes/account.js';
import { authRoutes } from './routes/auth.js';
import { bulkRoutes } from './routes/bulk.js';
import { evidenceHookRoutes } from './routes/evidence-hooks.js';
import { evidenceReceiverRoutes } from './routes/evidence-receivers.js';
import { deviceRoutes } from './routes/device.js';
import { healthRoutes } from './routes/health.js';
import { openApiRoutes, recordRoutes } from './routes/openapi.js';
import { tokenRoutes } from './routes/tokens.js';
import { verifyRoutes } from './routes/verify.js';
import { webhookRoutes } from './routes/webhooks.js';
import { evidenceRoutes } from './routes/evidence.js';

/** docs/api.md: the largest request body accepted (→ 413 beyond). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The HTTP service as a fastify instance, ready to `listen` or `inject`; building it opens nothing.
 * Routes outside the guarded scope (login, a device's login, health, OpenAPI, the ESPs' posts to evidence receivers) need no token; the dashboard's pages
 * have their own sign-in sessions.
 */
export function buildApp(config: AppConfig): FastifyInstance {
  const timeouts = { ...HTTP_TIMEOUTS, ...config.httpTimeouts };
  const app = Fastify({
    // Our own node server, so that requests refused before fastify sees them get problem+json too.
    serverFactory: httpServerFactory(timeouts),
    clientErrorHandler: clientErrorHandler(timeouts),
    logger: config.log ? loggerOptions(config.log) : false,
    // request.ip and request.protocol from X-Forwarded-* only when sent by a proxy we were told to trust.
    trustProxy: trustedProxies(config.trustProxy),
    bodyLimit: MAX_BODY_BYTES,
    ajv: {
      customOptions: {
        // Coercion would turn `{"email": 42}` into "42": a mistyped field must be a 400 instead.
        coerceTypes: false,
        // An unknown field is refused, not silently dropped: `{"emails": [...], "idempotency_key": "k"}`
        // must not look accepted to a client that then retries and pays twice.
        removeAdditional: false,
      },
    },
    // Errors met before routing (a malformed URL, an over-long id) get the same problem+json body.
    frameworkErrors: handleError,
  });
  acceptOnlyJsonBodies(app);
  refuseTokensInQuery(app);
  app.setErrorHandler(handleError);
  const routes = recordRoutes(app);
  app.setNotFoundHandler(notFoundHandler(routes));

  // One of each for the API and the dashboard: a token revoked in either is refused by both at once,
  // and a user's requests count against one rate limit whichever way they come.
  const authenticator = createAuthenticator(config.store, config.jwt);
  const checkCredentials = createCredentialCheck(config.store);
  const limiter = createRateLimiter(config.store.limits);

  const { metrics } = config;
  if (metrics) {
    // Routes as declared (`/v1/bulk-verify/:job_id`), never raw paths: the label values stay bounded.
    app.addHook('onResponse', async (request, reply) => {
      metrics.http(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1_000);
    });
  }
  healthRoutes(app, config.store.install, config.network);
  if (config.network) {
    const stopLogging = logNetworkChanges(config.network, app.log);
    app.addHook('onClose', async () => stopLogging());
  }
  openApiRoutes(app, routes);
  authRoutes(app, config, checkCredentials);
  deviceRoutes(app, config);
  dashboardRoutes(app, { ...config, authenticator, checkCredentials, limiter });
  app.register(async (scope) => {
    guardScope(scope, authenticator, limiter);
    verifyRoutes(scope, config);
    bulkRoutes(scope, config);
    tokenRoutes(scope, config, authenticator);
    accountRoutes(scope, config);
    webhookRoutes(scope, config);
    evidenceRoutes(scope, config);
    evidenceReceiverRoutes(scope, config);
  });
  // Outside the guard: an ESP has no bearer token; the URL's secret and its signature stand for one.
  app.register(async (scope) => evidenceHookRoutes(scope, config, limiter));
  return app;
}
