import { describe, expect, it } from 'vitest';
import { apiErrorFor, NetworkError, TimeoutError } from '../../src/client/errors.js';
import { cliErrorFor } from '../../src/cli/client-errors.js';
import { ExitCode } from '../../src/cli/errors.js';
import { reportError } from '../../src/cli/main.js';
import { ConfigError } from '../../src/config/errors.js';

const apiError = (status: number, code: string, extra: object = {}) =>
  apiErrorFor({ status, method: 'POST', url: 'http://127.0.0.1:1/v1/verify', problem: { detail: `about ${code}`, code, ...extra } });

/** DESIGN.md §4: 4 not authenticated · 5 insufficient tokens · 6 rate limited · 7 not found · 1 server or network. */
describe('client errors become exit codes in one place', () => {
  it.each([
    [apiError(401, 'unauthorized'), ExitCode.unauthenticated, 'run `mailverify login`'],
    [apiError(402, 'insufficient_tokens', { balance: 0, required: 3 }), ExitCode.insufficientTokens, 'insufficient tokens: balance 0, 3 required'],
    [apiError(429, 'rate_limited'), ExitCode.rateLimited, 'the service answered 429 (rate_limited)'],
    [apiError(404, 'not_found'), ExitCode.notFound, 'about not_found'],
    [apiError(400, 'invalid_request'), ExitCode.usage, 'about invalid_request'],
    [apiError(413, 'payload_too_large'), ExitCode.usage, 'about payload_too_large'],
    [apiError(409, 'idempotency_conflict'), ExitCode.failure, 'about idempotency_conflict'],
    [apiError(503, 'internal'), ExitCode.failure, 'the service answered 503'],
    [new NetworkError('cannot reach http://127.0.0.1:1: ECONNREFUSED', 'GET', 'http://127.0.0.1:1'), ExitCode.failure, 'check --base-url'],
    [new TimeoutError('no answer within 5 ms', 'GET', 'http://127.0.0.1:1'), ExitCode.failure, 'no answer within 5 ms'],
    [new ConfigError('bad config', '/tmp/x/config.json'), ExitCode.failure, 'fix or delete /tmp/x/config.json'],
  ])('%s → exit %i', (error, exitCode, text) => {
    let printed = '';
    const stderr = { write: (chunk: string) => (printed += chunk) } as unknown as NodeJS.WritableStream;
    expect(reportError(error, stderr)).toBe(exitCode);
    expect(printed).toContain(text);
    expect(printed.trimEnd().split('\n')).toHaveLength(1);
  });

  it('leaves other errors to the generic path', () => {
    expect(cliErrorFor(new Error('boom'))).toBeUndefined();
    expect(cliErrorFor('not an error')).toBeUndefined();
  });
});
