import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import { redactSecrets, redactSecretsIn } from '../auth/secrets.js';

/** pino's levels, most severe first, and `silent`: what `--log-level` takes. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Where the service logs (pino JSON lines) and from which level. */
export interface LogSettings {
  level: string;
  stream: { write(line: string): void };
}

/**
 * Headers that are secret whatever they hold (a Basic password, a session cookie), censored
 * wherever a request's headers are logged: under `req` by fastify itself, or as `headers` should
 * a route ever log them. Token-shaped values are redacted in every header and in the URL (see
 * requestFields). Bodies (passwords) are never logged.
 */
const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'];

/**
 * fastify's request fields plus the headers, which are what an operator needs to tell clients
 * apart (user agent, content type, idempotency key). Anything shaped like a token is redacted,
 * whatever header or query parameter it came in (`X-Api-Key`, `?access_token=`).
 */
function requestFields(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactSecrets(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
    headers: redactSecretsIn(request.headers),
  };
}

/** The logger options of the app: the one place that decides what a log line may hold. */
export function loggerOptions({ level, stream }: LogSettings): FastifyServerOptions['logger'] {
  return {
    level,
    stream,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // fastify hands its own request object to this serializer, though the type names the raw one.
    serializers: { req: (request) => requestFields(request as unknown as FastifyRequest) },
  };
}
