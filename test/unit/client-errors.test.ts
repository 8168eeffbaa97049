import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { apiErrorFor, InvalidResponseError, NetworkError, TimeoutError } from '../../src/client/errors.js';
import { cliErrorFor } from '../../src/cli/output/client-errors.js';
import { CliError, ExitCode } from '../../src/cli/output/errors.js';
import { reportError } from '../../src/cli/main.js';
import { ConfigError, KeyringError } from '../../src/config/errors.js';

const apiError = (status: number, code: string, extra: object = {}) =>
  apiErrorFor({ status, method: 'POST', url: 'http://127.0.0.1:1/v1/verify', problem: { detail: `about ${code}`, code, ...extra } });

/** docs/architecture.md "The CLI": 4 not authenticated · 5 insufficient tokens · 6 rate limited · 7 not found · 1 server or network. */
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
    [
      new InvalidResponseError('GET http://127.0.0.1:1/healthz answered 200 with a body that is not JSON', 'GET', 'http://127.0.0.1:1'),
      ExitCode.failure,
      'check --base-url',
    ],
    [new ConfigError('bad config', '/tmp/x/config.json'), ExitCode.failure, 'fix or delete /tmp/x/config.json'],
    [new KeyringError('the token of profile "a" is in the OS keyring, which does not answer: locked'), ExitCode.failure, 'unlock the OS keyring'],
  ])('%s → exit %i', (error, exitCode, text) => {
    let printed = '';
    const stderr = { write: (chunk: string) => (printed += chunk) } as unknown as NodeJS.WritableStream;
    expect(reportError(error, stderr)).toBe(exitCode);
    expect(printed).toContain(text);
    expect(printed.trimEnd().split('\n')).toHaveLength(1);
    // Every error says what to do next, in parentheses at the end of its line.
    expect(printed).toMatch(/ \(.+\)\n$/);
  });

  it('prints one line even when a message or hint spans several', () => {
    let printed = '';
    const stderr = { write: (chunk: string) => (printed += chunk) } as unknown as NodeJS.WritableStream;
    expect(reportError(new CliError('first line\n  second line', ExitCode.usage, 'a hint\non two lines'), stderr)).toBe(ExitCode.usage);
    expect(reportError(new Error('unexpected\nand long'), stderr)).toBe(ExitCode.failure);
    expect(printed).toBe('mailverify: first line second line (a hint on two lines)\nmailverify: unexpected error: unexpected and long\n');
  });

  it('maps commander: help or version asked for → 0, help because no command was given → 2', () => {
    const silent = { write: () => true } as unknown as NodeJS.WritableStream;
    expect(reportError(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), silent)).toBe(ExitCode.ok);
    expect(reportError(new CommanderError(0, 'commander.version', '0.1.0'), silent)).toBe(ExitCode.ok);
    expect(reportError(new CommanderError(1, 'commander.help', '(outputHelp)'), silent)).toBe(ExitCode.usage);
    expect(reportError(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"), silent)).toBe(ExitCode.usage);
  });

  it('under --json writes one JSON object on stderr: code, message, exit code and hint', () => {
    let printed = '';
    const stderr = { write: (chunk: string) => (printed += chunk) } as unknown as NodeJS.WritableStream;
    expect(reportError(apiError(402, 'insufficient_tokens', { balance: 0, required: 3 }), stderr, true)).toBe(ExitCode.insufficientTokens);
    expect(reportError(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"), stderr, true)).toBe(ExitCode.usage);
    expect(reportError(new Error('boom'), stderr, true)).toBe(ExitCode.failure);
    expect(
      printed
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      { error: { code: 'insufficient_tokens', message: 'insufficient tokens: balance 0, 3 required', exitCode: 5, hint: expect.any(String) } },
      { error: { code: 'usage', message: "unknown option '--x'", exitCode: 2, hint: expect.stringContaining('--help') } },
      { error: { code: 'failure', message: 'unexpected error: boom', exitCode: 1 } },
    ]);
  });

  it('a 401 while MAILVERIFY_TOKEN is set points at the variable, not at login', () => {
    expect(cliErrorFor(apiError(401, 'unauthorized'), { MAILVERIFY_TOKEN: 'mv_x' })?.hint).toMatch(/MAILVERIFY_TOKEN: set a valid one, or unset it/);
    expect(cliErrorFor(apiError(401, 'unauthorized'), {})?.hint).toBe('run `mailverify login`');
  });

  it('leaves other errors to the generic path', () => {
    expect(cliErrorFor(new Error('boom'))).toBeUndefined();
    expect(cliErrorFor('not an error')).toBeUndefined();
  });
});
