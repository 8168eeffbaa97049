import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEVICE_CODE_GRANT_TYPE, type DeviceTokenError } from '../../wire/contract.js';
import type { AppConfig } from './app-config.js';
import { generateApiToken, hashApiToken } from '../auth/api-tokens.js';
import { DEFAULT_DEVICE_FLOW_TIMES, generateDeviceCode, generateUserCode, hashCode, normaliseUserCode } from '../auth/device-codes.js';
import { admitDeviceLogin } from '../auth/login-limit.js';
import { grantFrom } from '../auth/token-grant.js';
import { deviceAuthorizationRouteSchema, deviceTokenRouteSchema } from '../schemas/device.js';
import type { DevicePoll } from '../store/store.js';

/** A device that gives no name; the token it gets is named so. */
const UNNAMED_DEVICE = 'unnamed device';
/** Draws of a user code that is not taken before giving up (one in 2.6 × 10^10 is taken per live request). */
const USER_CODE_DRAWS = 5;

const OAUTH_ERRORS: Record<Exclude<DevicePoll['outcome'], 'issued'>, [DeviceTokenError, string]> = {
  pending: ['authorization_pending', 'Not approved yet: poll again after the interval.'],
  slow_down: ['slow_down', 'Polled sooner than the interval: wait longer between polls.'],
  denied: ['access_denied', 'The request was denied on the approval page.'],
  expired: ['expired_token', 'The codes expired before anyone approved them: start again.'],
  unknown: ['invalid_grant', 'No such device code, or its token was handed out already.'],
};

/** RFC 6749 §5.2: an OAuth error is a 400 with JSON `{error, error_description}`, never kept by a cache. */
function oauthError(reply: FastifyReply, error: DeviceTokenError, description: string, extras: { interval?: number } = {}): FastifyReply {
  return reply
    .code(400)
    .header('cache-control', 'no-store')
    .send({ error, error_description: description, ...extras });
}

/** The dashboard's approval page at the address the device's user reaches this service by (behind a trusted proxy, the proxy's). */
function verificationUri(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}/device`;
}

/**
 * The OAuth 2.0 device authorization grant (RFC 8628; docs/api.md "Logging in from a device"): a
 * device asks for codes, a person signed in to the dashboard approves at `/device`, and the device
 * polls until it is handed an API token of that person's account, once. Neither route needs a
 * token. The poll answers OAuth's error JSON rather than problem+json, as OAuth clients expect.
 */
export function deviceRoutes(app: FastifyInstance, { store, deviceFlow = DEFAULT_DEVICE_FLOW_TIMES }: AppConfig): void {
  app.register(async (scope) => {
    // RFC 8628 §3.4 polls with a form; JSON is taken too. The form parser lives in this scope only.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body: string, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body)));
    });
    const routes = scope.withTypeProvider<JsonSchemaToTsProvider>();

    const noBodyIsEmpty = async (request: FastifyRequest) => {
      request.body ??= {};
    };
    // The body is optional: a device that asks nothing in particular sends none.
    routes.post('/v1/auth/device', { schema: deviceAuthorizationRouteSchema, preValidation: noBodyIsEmpty }, async (request, reply) => {
      await admitDeviceLogin(store.limits, request.ip);
      const grant = grantFrom({ scopes: request.body.scopes });
      const deviceCode = generateDeviceCode();
      for (let draw = 0; draw < USER_CODE_DRAWS; draw++) {
        const userCode = generateUserCode();
        const created = await store.deviceGrants.create({
          deviceCodeHash: hashCode(deviceCode),
          userCodeHash: hashCode(normaliseUserCode(userCode)!),
          clientName: request.body.client_name?.trim() || UNNAMED_DEVICE,
          grant,
          lifetimeMs: deviceFlow.lifetimeSeconds * 1_000,
          intervalSeconds: deviceFlow.intervalSeconds,
        });
        if (!created) continue;
        const uri = verificationUri(request);
        return reply.header('cache-control', 'no-store').send({
          device_code: deviceCode,
          user_code: userCode,
          verification_uri: uri,
          verification_uri_complete: `${uri}?code=${userCode}`,
          interval: deviceFlow.intervalSeconds,
          expires_in: deviceFlow.lifetimeSeconds,
        });
      }
      throw new Error(`no free user code in ${USER_CODE_DRAWS} draws`);
    });

    routes.post('/v1/auth/device/token', { schema: deviceTokenRouteSchema, preValidation: noBodyIsEmpty }, async (request, reply) => {
      const { grant_type: grantType, device_code: deviceCode } = request.body;
      if (grantType === undefined || deviceCode === undefined) return oauthError(reply, 'invalid_request', 'Send grant_type and device_code.');
      if (grantType !== DEVICE_CODE_GRANT_TYPE) return oauthError(reply, 'unsupported_grant_type', `grant_type must be ${DEVICE_CODE_GRANT_TYPE}.`);
      const token = generateApiToken();
      const poll = await store.deviceGrants.poll(hashCode(deviceCode), hashApiToken(token));
      if (poll.outcome !== 'issued') {
        const [error, description] = OAUTH_ERRORS[poll.outcome];
        return oauthError(reply, error, description, poll.outcome === 'slow_down' ? { interval: poll.intervalSeconds } : {});
      }
      // The only time the secret is shown: only its hash is kept.
      return reply
        .header('cache-control', 'no-store')
        .send({ access_token: token, token_type: 'Bearer' as const, scope: poll.token.scopes.join(' '), token_id: poll.token.id });
    });
  });
}
