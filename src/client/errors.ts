/**
 * The errors of the API client. An HTTP error answer becomes an ApiError subclass chosen by its
 * status (one place: `apiErrorFor`); a request that got no answer becomes a NetworkError. This file
 * loads nothing else so that the CLI's error reporter can import it without pulling in undici.
 */

/** The parts of an RFC 9457 problem+json body the service sends (docs/api.md). */
export interface ProblemBody {
  title?: string;
  detail?: string;
  code?: string;
  /** Only on 402. */
  balance?: number;
  required?: number;
  /** An OAuth error body (the device login's poll) says what went wrong here instead of `code` and `detail`. */
  error?: string;
  error_description?: string;
  /** With `slow_down`: the interval the service now asks for. */
  interval?: number;
}

export interface ApiErrorInit {
  status: number;
  method: string;
  url: string;
  problem: ProblemBody;
  retryAfterSeconds?: number;
}

/** The service answered with a status other than 2xx. */
export class ApiError extends Error {
  readonly status: number;
  /** The problem+json `code` (`unauthorized`, `insufficient_tokens`, ...), or `http_<status>` when absent. */
  readonly code: string;
  readonly detail: string | undefined;
  /** From `Retry-After`, when the answer carried one. */
  readonly retryAfterSeconds: number | undefined;
  readonly method: string;
  readonly url: string;
  /** What the answer's body said, as read. */
  readonly problem: ProblemBody;

  constructor(init: ApiErrorInit) {
    const { status, method, url, problem } = init;
    const detail = problem.detail ?? problem.error_description;
    super(detail ?? problem.title ?? `HTTP ${status}`);
    this.name = new.target.name;
    this.status = status;
    this.code = problem.code ?? problem.error ?? `http_${status}`;
    this.detail = detail;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.method = method;
    this.url = url;
    this.problem = problem;
  }
}

/** 400 / 415: the request was malformed. */
export class BadRequestError extends ApiError {}
/** 401: no token, or one the service does not accept. */
export class UnauthorizedError extends ApiError {}
/** 403: the token is valid but not allowed this (a scope it lacks, a grant beyond its own). */
export class ForbiddenError extends ApiError {}
/** 402: the balance does not cover the cost; nothing was charged. */
export class InsufficientTokensError extends ApiError {
  readonly balance: number | undefined;
  readonly required: number | undefined;
  constructor(init: ApiErrorInit) {
    super(init);
    this.balance = init.problem.balance;
    this.required = init.problem.required;
  }
}
/** 404: unknown job or token, or one that belongs to someone else. */
export class NotFoundError extends ApiError {}
/** 409: an Idempotency-Key reused with a different body. */
export class IdempotencyConflictError extends ApiError {}
/** 413: too many emails or too large a body. */
export class PayloadTooLargeError extends ApiError {}
/** 429: over the per-user rate limit (after the retries ran out). */
export class RateLimitedError extends ApiError {}
/** 5xx. */
export class ServerError extends ApiError {}
/**
 * A device login that will not give a token (docs/api.md "Logging in from a device"): denied on the
 * approval page (`access_denied`), not approved in time (`expired_token`), or its code unknown or
 * used (`invalid_grant`). Polling again cannot help; starting again can.
 */
export class DeviceLoginError extends ApiError {}

/** The ApiError subclass for a status. */
export function apiErrorFor(init: ApiErrorInit): ApiError {
  const { status } = init;
  if (status === 400 || status === 415) return new BadRequestError(init);
  if (status === 401) return new UnauthorizedError(init);
  if (status === 402) return new InsufficientTokensError(init);
  if (status === 403) return new ForbiddenError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new IdempotencyConflictError(init);
  if (status === 413) return new PayloadTooLargeError(init);
  if (status === 429) return new RateLimitedError(init);
  if (status >= 500) return new ServerError(init);
  return new ApiError(init);
}

/** No answer: connection refused or cut, a name that does not resolve. */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request took longer than the client's timeout. */
export class TimeoutError extends NetworkError {}

/** A 2xx answer whose body is not the JSON the contract promises: a wrong base URL or a proxy, not worth retrying. */
export class InvalidResponseError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly url: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Whether a failed attempt may succeed when simply tried again later. */
export function isTransient(error: unknown): boolean {
  return error instanceof RateLimitedError || error instanceof ServerError || error instanceof NetworkError;
}
