import type { FastifyError, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { StoreFault } from '../store/model.js';

/**
 * Every error the service answers with, as `application/problem+json` (RFC 9457) plus a stable
 * `code` (docs/api.md). Routes throw ProblemError; fastify's own errors (bad JSON, wrong media
 * type, body too large, schema validation) are mapped here too, so bad input is never a 500.
 */

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

const PROBLEMS = {
  invalid_request: { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Invalid or missing authentication token' },
  insufficient_tokens: { status: 402, title: 'Insufficient tokens' },
  insufficient_scope: { status: 403, title: 'Token lacks a scope' },
  beyond_token_grant: { status: 403, title: 'A new token may not do more than the token that makes it' },
  bad_signature: { status: 403, title: 'Signature not valid' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  // Before the codes whose status fastify's own errors are mapped to (CODE_BY_STATUS keeps the last).
  webhook_endpoint_limit: { status: 409, title: 'Too many webhook endpoints' },
  evidence_receiver_limit: { status: 409, title: 'Too many evidence receivers' },
  idempotency_conflict: { status: 409, title: 'Idempotency key reused with another request' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  expectation_failed: { status: 417, title: 'Expectation failed' },
  webhook_test_limit: { status: 429, title: 'Too many webhook test events' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  not_implemented: { status: 501, title: 'Not implemented' },
  esp_unreachable: { status: 502, title: 'The sending service could not be reached' },
  store_unavailable: { status: 503, title: 'Service unavailable' },
  cannot_verify: { status: 503, title: 'Service cannot verify' },
  http_version_not_supported: { status: 505, title: 'HTTP version not supported' },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

/** Fields a problem may carry beyond the RFC's (402 tells what the balance is and what was needed). */
export interface ProblemExtras {
  balance?: number;
  required?: number;
  /** With insufficient_scope: the scope the route needs. */
  scope?: string;
  /** With beyond_token_grant: the scopes asked beyond the creating token's, and `expiry` when it would outlive it. */
  beyondGrant?: string[];
}

export interface ProblemBody extends ProblemExtras {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
}

export class ProblemError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ProblemCode,
    detail: string,
    readonly extras: ProblemExtras = {},
    /** Sent as Retry-After (not in the body): when trying again can succeed. */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.statusCode = PROBLEMS[code].status;
  }
}

/** A 402: what the request needed and what the balance holds, so a client can say how short it is. */
export function insufficientTokens({ balance, required }: { balance: number; required: number }): ProblemError {
  return new ProblemError('insufficient_tokens', `This request costs ${required} token${required === 1 ? '' : 's'}; the balance is ${balance}.`, {
    balance,
    required,
  });
}

export function problemStatus(code: ProblemCode): number {
  return PROBLEMS[code].status;
}

export function problemBody(code: ProblemCode, detail: string, extras: ProblemExtras = {}): ProblemBody {
  const { status, title } = PROBLEMS[code];
  return { type: 'about:blank', title, status, detail, code, ...extras };
}

const CODE_BY_STATUS: Record<number, ProblemCode> = Object.fromEntries(Object.entries(PROBLEMS).map(([code, { status }]) => [status, code as ProblemCode]));

/**
 * Fastify errors answered with our own words (its messages only repeat the title), or, for an id
 * too long to route, as what it is to the caller: something that does not exist.
 */
const FRAMEWORK_PROBLEMS: Record<string, { code: ProblemCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', detail: 'Send request bodies as JSON with Content-Type: application/json.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', detail: 'The request body is over 8 MiB.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'not_found', detail: 'No such resource: the id in the path is longer than any this service issues.' },
};

/**
 * Fastify's own errors carry the right 4xx status already (FST_ERR_CTP_* for media type, size,
 * empty or malformed JSON; FST_ERR_VALIDATION for schema failures); only the body needs our shape.
 * The one schema rule answered otherwise is `maxItems` (the 50,000-email cap): too many items is a
 * payload too large, not a malformed one.
 */
function fromFastifyError(error: FastifyError): ProblemBody | undefined {
  const known = FRAMEWORK_PROBLEMS[error.code];
  if (known) return problemBody(known.code, known.detail);
  if (error.validation?.some((failure) => failure.keyword === 'maxItems')) {
    return problemBody('payload_too_large', error.message);
  }
  // ajv's own words ("must NOT have additional properties") do not say which field to remove.
  const unknownField = error.validation?.find((failure) => failure.keyword === 'additionalProperties')?.params.additionalProperty;
  if (typeof unknownField === 'string')
    return problemBody('invalid_request', `Unknown field "${unknownField}" in the ${error.validationContext ?? 'request'}.`);
  const status = error.statusCode;
  if (status === undefined || status < 400 || status >= 500) return undefined;
  return { ...problemBody(CODE_BY_STATUS[status] ?? 'invalid_request', error.message), status };
}

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

/** The headers a problem brings beside its body (Retry-After), on the API's answers and the dashboard's pages alike. */
export function setProblemHeaders(reply: FastifyReply, error: ProblemError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply;
}

/** How soon a client should try again while the store does not answer (a database restart takes seconds). */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** The one error handler of the app; server faults are logged and answered without internals. */
export function handleError(error: FastifyError | ProblemError | StoreFault, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ProblemError) return sendProblem(setProblemHeaders(reply, error), problemBody(error.code, error.message, error.extras));
  if (error instanceof StoreFault) {
    // A condition, not a bug: said as such, and logged without a stack at each request.
    request.log.warn({ cause: error.message }, 'the store does not answer');
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    return sendProblem(reply, problemBody('store_unavailable', 'The service cannot reach its database right now; try again shortly.'));
  }
  const clientError = fromFastifyError(error);
  if (clientError) return sendProblem(reply, clientError);
  request.log.error({ err: error }, 'request failed');
  return sendProblem(reply, problemBody('internal', 'The server could not complete the request.'));
}

/** A route path (`/v1/bulk-verify/:id`) as a pattern for concrete paths. */
function pathPattern(url: string): RegExp {
  const escaped = url.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/:[^/]+/g, '[^/]+').replaceAll('*', '.*')}$`);
}

/**
 * The app's not-found handler over the routes it has (filled in as they are added): a path that
 * some route serves with other methods is a 405 with `Allow`, any other a 404.
 */
export function notFoundHandler(routes: readonly RouteOptions[]) {
  let patterns: { pattern: RegExp; methods: string[] }[] | undefined;
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    patterns ??= routes.map((route) => ({ pattern: pathPattern(route.url), methods: [route.method].flat() }));
    const path = request.url.split('?')[0]!;
    const allowed = [...new Set(patterns.filter(({ pattern }) => pattern.test(path)).flatMap(({ methods }) => methods))];
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, problemBody('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}.`));
    }
    return sendProblem(reply, problemBody('not_found', `No route for ${request.method} ${path}.`));
  };
}
