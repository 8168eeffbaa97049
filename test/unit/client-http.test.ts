import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClientOptions } from '../../src/client/api-client.js';
import {
  BadRequestError,
  IdempotencyConflictError,
  InsufficientTokensError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from '../../src/client/errors.js';
import { parseRetryAfter } from '../../src/text/retry-after.js';
import { startScriptedServer, type ScriptedAnswer, type ScriptedServer } from '../support/scripted-http-server.js';

const TOKEN = 'mv_secretsecretsecretsecret0123456789';
const RESULT = { email: 'a@example.org', result: 'valid', checks: {}, reason: 'ok' };
const problem = (status: number, code: string, extra: object = {}) => ({
  type: 'about:blank',
  title: code,
  status,
  detail: `detail of ${code}`,
  code,
  ...extra,
});

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client against a server scripted by `answers` (the last one repeats), with fast retries. */
async function clientFor(answers: ScriptedAnswer[], options: Partial<ApiClientOptions> = {}) {
  server = await startScriptedServer((_request, index) => answers[Math.min(index, answers.length - 1)]!);
  return createApiClient({ baseUrl: server.baseUrl, token: TOKEN, retry: { baseDelayMs: 5, maxAttempts: 4 }, ...options });
}

describe('the API client over HTTP', () => {
  it('sends the bearer token, JSON body and Idempotency-Key, and returns the parsed body', async () => {
    const client = await clientFor([{ status: 200, json: RESULT }]);
    await expect(client.verify('a@example.org', { idempotencyKey: 'key-1' })).resolves.toEqual(RESULT);
    const [request] = server!.requests;
    expect(request).toMatchObject({ method: 'POST', url: '/v1/verify', body: '{"email":"a@example.org"}' });
    expect(request!.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': 'key-1' });
    await client.close();
  });

  it('sends no token to the login route', async () => {
    const client = await clientFor([{ status: 200, json: { token: 'jwt', tokenType: 'Bearer', expiresAt: 'x' } }]);
    await client.login('a@example.org', 'pw');
    expect(server!.requests[0]!.headers.authorization).toBeUndefined();
    await client.close();
  });

  it('retries a keyed POST through two 429s (honouring Retry-After) and succeeds with the same key', async () => {
    const limited: ScriptedAnswer = { status: 429, headers: { 'retry-after': '0' }, json: problem(429, 'rate_limited') };
    const client = await clientFor([limited, limited, { status: 200, json: RESULT }]);
    await expect(client.verify('a@example.org', { idempotencyKey: 'key-2' })).resolves.toEqual(RESULT);
    expect(server!.requests.map((request) => request.headers['idempotency-key'])).toEqual(['key-2', 'key-2', 'key-2']);
    await client.close();
  });

  it('waits as long as Retry-After asks, even when its own backoff would be shorter', async () => {
    const debug = new PassThrough();
    let trace = '';
    debug.setEncoding('utf8').on('data', (chunk: string) => (trace += chunk));
    const limited: ScriptedAnswer = { status: 429, headers: { 'retry-after': '1' }, json: problem(429, 'rate_limited') };
    // The backoff alone is at most 5 ms here: a wait of 1000 ms can only come from the header.
    const client = await clientFor([limited, { status: 200, json: { status: 'ok' } }], { debug });
    await client.health();
    expect(trace).toMatch(/retrying in 1000 ms/);
    await client.close();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('never repeats a POST without an Idempotency-Key', async () => {
    const client = await clientFor([{ status: 429, headers: { 'retry-after': '7' }, json: problem(429, 'rate_limited') }]);
    const error = await client.verify('a@example.org').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 7 });
    expect(server!.requests).toHaveLength(1);
    await client.close();
  });

  it('retries GETs after 5xx and after a cut connection', async () => {
    const progress = { job_id: 'j', status: 'processing', total: 2, processed: 1, progress_percent: 50 };
    const client = await clientFor([{ status: 503, json: problem(503, 'internal') }, { cut: true }, { status: 200, json: progress }]);
    await expect(client.progress('j')).resolves.toEqual(progress);
    expect(server!.requests.map((request) => request.url)).toEqual(Array(3).fill('/v1/bulk-verify/j/progress'));
    await client.close();
  });

  it('gives up on endless 429s after maxAttempts, within the time bound', async () => {
    const client = await clientFor([{ status: 429, headers: { 'retry-after': '0' }, json: problem(429, 'rate_limited') }], {
      retry: { maxAttempts: 3, baseDelayMs: 5, maxElapsedMs: 5_000 },
    });
    const started = Date.now();
    await expect(client.account()).rejects.toBeInstanceOf(RateLimitedError);
    expect(server!.requests).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(5_000);
    await client.close();
  });

  it.each([
    [400, 'invalid_request', BadRequestError],
    [401, 'unauthorized', UnauthorizedError],
    [404, 'not_found', NotFoundError],
    [409, 'idempotency_conflict', IdempotencyConflictError],
    [413, 'payload_too_large', PayloadTooLargeError],
    [415, 'unsupported_media_type', BadRequestError],
    [500, 'internal', ServerError],
  ])('maps %i to its error type with the problem code and detail', async (status, code, type) => {
    const client = await clientFor([{ status, json: problem(status, code) }], { retry: { maxAttempts: 1 } });
    const error = await client.jobPage('j', { limit: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ status, code, detail: `detail of ${code}` });
    await client.close();
  });

  it('carries the balance and the cost of a 402', async () => {
    const client = await clientFor([{ status: 402, json: problem(402, 'insufficient_tokens', { balance: 3, required: 10 }) }]);
    const error = await client.submitBulk(['a@b.c'], { idempotencyKey: 'k' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InsufficientTokensError);
    expect(error).toMatchObject({ balance: 3, required: 10 });
    await client.close();
  });

  it('reports a refused connection as a NetworkError', async () => {
    const client = await clientFor([{ status: 200, json: {} }], { retry: { maxAttempts: 1 } });
    await server!.close();
    server = undefined;
    await expect(client.health()).rejects.toBeInstanceOf(NetworkError);
    await client.close();
  });

  it('reports a slow answer as a TimeoutError', async () => {
    const client = await clientFor([{ status: 200, json: {}, delayMs: 2_000 }], { timeoutMs: 100, retry: { maxAttempts: 1 } });
    await expect(client.health()).rejects.toBeInstanceOf(TimeoutError);
    await client.close();
  });

  it('rejects a 2xx body that is not JSON (a wrong base URL), without retrying', async () => {
    const client = await clientFor([{ status: 200, text: '<html>not the service</html>' }]);
    await expect(client.health()).rejects.toBeInstanceOf(InvalidResponseError);
    expect(server!.requests).toHaveLength(1);
    await client.close();
  });

  it('traces method, URL and status with --debug, never the token', async () => {
    const debug = new PassThrough();
    let trace = '';
    debug.setEncoding('utf8').on('data', (chunk: string) => (trace += chunk));
    const client = await clientFor(
      [
        { status: 503, json: problem(503, 'internal') },
        { status: 200, json: { status: 'ok' } },
      ],
      { debug },
    );
    await client.account();
    expect(trace).toMatch(new RegExp(`GET ${server!.baseUrl}/v1/account .*→ 503 in \\d+ ms`));
    expect(trace).toMatch(/retrying in \d+ ms/);
    expect(trace).toMatch(/→ 200 in \d+ ms/);
    expect(trace).toContain('authorization: Bearer [redacted]');
    expect(trace).not.toContain(TOKEN);
    await client.close();
  });
});
