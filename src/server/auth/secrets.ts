import type { FastifyInstance } from 'fastify';
import { API_TOKEN_PREFIX, RECEIVER_SECRET_PREFIX } from './api-tokens.js';
import { ProblemError } from '../http/errors.js';

/**
 * Secrets recognised by their shape rather than by where they were sent: a client may put a token
 * in `X-Api-Key`, `?access_token=` or a cookie as easily as in `Authorization`, and a log line
 * must not hold it wherever it was. `mv_` (or an evidence receiver's `mvr_`, which is in its URL's
 * path) and 16 or more letters or digits (ours are 64 hex; a near miss or another install's token
 * is as secret), or three base64url parts of which the first
 * opens a JSON object (`eyJ` is `{"`): a JWT.
 */
const SECRET_SHAPE = `(?:${API_TOKEN_PREFIX}|${RECEIVER_SECRET_PREFIX})[A-Za-z0-9]{16,}|eyJ[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*`;
const SECRETS = new RegExp(SECRET_SHAPE, 'g');
const HAS_SECRET = new RegExp(SECRET_SHAPE);
const CENSOR = '[redacted]';

/** `text` with every token-shaped run replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(SECRETS, CENSOR);
}

/** Strings anywhere in a plain value (headers, a parsed body) redacted by shape; a copy, the value is left as it was. */
export function redactSecretsIn(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactSecretsIn);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactSecretsIn(inner)]));
  }
  return value;
}

/** Query parameters that carry a bearer token by convention (RFC 6750 §2.3 and common API habits). */
const TOKEN_PARAMETERS = new Set(['access_token', 'token', 'api_key', 'apikey', 'key', 'auth', 'authorization', 'jwt']);

/**
 * Refuses a request with a token in its query string, whatever the parameter is called: URLs end
 * up in proxy logs, browser history and Referer headers, so the token would be spent already.
 * Checked before authentication, on every route, with a 400 that says where the token belongs.
 */
export function refuseTokensInQuery(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const queryStart = request.url.indexOf('?');
    if (queryStart < 0) return;
    const query = new URLSearchParams(request.url.slice(queryStart + 1));
    for (const [name, value] of query) {
      if (TOKEN_PARAMETERS.has(name.toLowerCase()) || HAS_SECRET.test(value) || HAS_SECRET.test(name)) {
        const shown = redactSecrets(name);
        throw new ProblemError(
          'invalid_request',
          `A token in the query string ("${shown}") is refused: send it in the Authorization header (Authorization: Bearer <token>).`,
        );
      }
    }
  });
}
