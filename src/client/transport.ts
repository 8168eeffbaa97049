import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { ApiError, apiErrorFor, InvalidResponseError, isTransient, NetworkError, TimeoutError, type ProblemBody } from './errors.js';
import { withRetry, type RetryPolicy } from './retry.js';
import { createServerPacer } from './rate-limiter.js';
import { parseRetryAfter } from '../text/retry-after.js';
import { VERSION } from '../version.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface TransportOptions {
  baseUrl: string;
  token?: string;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Where `--debug` traces go (stderr); no tracing when absent. */
  debug?: NodeJS.WritableStream;
  /** Aborts every request and every backoff wait (Ctrl-C). */
  signal?: AbortSignal;
  /** Told before every wait between attempts: what failed and how long the wait is. */
  onRetryWait?: (error: unknown, delayMs: number) => void;
}

export interface RequestSpec {
  method: Method;
  path: string;
  body?: unknown;
  /** Makes a POST safe to repeat, so it is retried like a GET. */
  idempotencyKey?: string;
  /** Routes that need no bearer token (login, health). */
  anonymous?: boolean;
  /** Told the `Date` header of a successful answer (for the clock check of `doctor`). */
  onDate?: (date: string | undefined) => void;
}

export interface Transport {
  send<T>(spec: RequestSpec): Promise<T>;
  close(): Promise<void>;
}

const USER_AGENT = `mailverify/${VERSION}`;

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseProblem(text: string): ProblemBody {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null ? (body as ProblemBody) : {};
  } catch {
    return {};
  }
}

/** The trace line's view of the headers: everything but the secret. */
function describeHeaders(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${name === 'authorization' ? 'Bearer [redacted]' : value}`)
    .join(', ');
}

/** A response's body as the caller's type, or the error its status or body means. */
function answerOf<T>(spec: RequestSpec, url: string, response: { status: number; text: string; retryAfter?: string; date?: string }): T {
  const { status, text } = response;
  if (status < 200 || status >= 300) {
    throw apiErrorFor({ status, method: spec.method, url, problem: parseProblem(text), retryAfterSeconds: parseRetryAfter(response.retryAfter) });
  }
  spec.onDate?.(response.date);
  if (status === 204 || text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new InvalidResponseError(`${spec.method} ${url} answered ${status} with a body that is not JSON`, spec.method, url);
  }
}

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // One keep-alive pool for the life of the command: concurrent verifies and polling reuse connections.
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const trace = (line: string) => options.debug?.write(`mailverify: debug: ${line}\n`);
  // The service's RateLimit field paces every request of this client (docs/api.md "Limits and headers").
  const pacer = createServerPacer();

  function headersFor(spec: RequestSpec): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (!spec.anonymous && options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (spec.idempotencyKey !== undefined) headers['idempotency-key'] = spec.idempotencyKey;
    return headers;
  }

  /** Turns whatever undici threw into our errors; a user's abort passes through untouched. */
  function networkError(error: unknown, spec: RequestSpec, url: string, timeout: AbortSignal): unknown {
    if (options.signal?.aborted) return error;
    if (timeout.aborted) return new TimeoutError(`no answer from ${url} within ${options.timeoutMs} ms`, spec.method, url, { cause: error });
    const reason = error instanceof Error ? error.message : String(error);
    return new NetworkError(`cannot reach ${baseUrl}: ${reason}`, spec.method, url, { cause: error });
  }

  async function attempt<T>(spec: RequestSpec, url: string, headers: Record<string, string>): Promise<T> {
    const paced = spec.anonymous ? undefined : await pacer.ready(options.signal);
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const started = performance.now();
    let status: number;
    let text: string;
    let retryAfter: string | undefined;
    let date: string | undefined;
    try {
      const response = await request(url, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        dispatcher: agent,
        signal,
      });
      status = response.statusCode;
      retryAfter = headerValue(response.headers['retry-after']);
      date = headerValue(response.headers.date);
      paced?.({ status, rateLimit: headerValue(response.headers.ratelimit), policy: headerValue(response.headers['ratelimit-policy']) });
      text = await response.body.text();
    } catch (error) {
      paced?.();
      trace(`${spec.method} ${url} failed after ${Math.round(performance.now() - started)} ms: ${String(error)}`);
      throw networkError(error, spec, url, timeout);
    }
    trace(`${spec.method} ${url} [${describeHeaders(headers)}] → ${status} in ${Math.round(performance.now() - started)} ms`);
    return answerOf<T>(spec, url, { status, text, retryAfter, date });
  }

  return {
    send<T>(spec: RequestSpec): Promise<T> {
      const url = `${baseUrl}${spec.path}`;
      const headers = headersFor(spec);
      // A POST is only repeated when its Idempotency-Key makes the repeat harmless (no second charge).
      const repeatable = spec.method !== 'POST' || spec.idempotencyKey !== undefined;
      return withRetry(() => attempt<T>(spec, url, headers), {
        policy: options.retry,
        retryable: (error) => repeatable && isTransient(error),
        requestedDelayMs: (error) => (error instanceof ApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : undefined),
        onRetry: (error, delayMs, attemptNumber) => {
          trace(
            `attempt ${attemptNumber} of ${spec.method} ${url} failed (${error instanceof Error ? error.message : String(error)}); retrying in ${delayMs} ms`,
          );
          options.onRetryWait?.(error, delayMs);
        },
        signal: options.signal,
      });
    },
    close: () => agent.close(),
  };
}
