import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/** Where the service logs (pino JSON lines) and from which level. */
export interface LogSettings {
  level: string;
  stream: { write(line: string): void };
}

/**
 * Secrets a request can carry, censored wherever a request's headers are logged: under `req` by
 * fastify itself, or as `headers` should a route ever log them. Bodies (passwords) are never logged.
 */
const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'];

/**
 * fastify's request fields plus the headers, which are what an operator needs to tell clients
 * apart (user agent, content type, idempotency key); the bearer token among them is redacted.
 */
function requestFields(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
    headers: request.headers,
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
