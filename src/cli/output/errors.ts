/** Exit codes of docs/architecture.md "The CLI"; the only place they are spelled out. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  verdictMatched: 3,
  unauthenticated: 4,
  insufficientTokens: 5,
  rateLimited: 6,
  notFound: 7,
  jobNotFinished: 8,
  cannotVerify: 9,
  shareExceeded: 10,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Said wherever a newcomer without a service is stopped: not logged in, no service at the URL. */
export const WITHOUT_A_SERVICE = 'or, with no service, `verify --local` and `bulk submit --local` work on this machine alone';

/** An exit code's name as `--json` errors carry it: `usage`, `insufficient_tokens`, ... */
export function exitCodeName(code: number): string {
  const name = Object.entries(ExitCode).find(([, value]) => value === code)?.[0] ?? 'failure';
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * An error the CLI expects and knows how to report: one line on stderr, an optional hint,
 * and its exit code. Commands throw these; only src/cli/main.ts turns them into output.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags, bad arguments or a malformed input file. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint);
  }
}

/** `--sandbox` without `--local`: through a service, the sandbox is the token's (docs/api.md "Sandbox"). */
export function sandboxNeedsLocal(): UsageError {
  return new UsageError('--sandbox needs --local', 'through a service, use a test token: `mailverify tokens create --test`');
}

/** No token, a token the service refuses, or wrong credentials: the hint says how to get in. */
export class NotAuthenticatedError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.unauthenticated, hint);
  }
}

/** A verdict or reason code listed in `--fail-on` occurred; the results were printed already. */
export class VerdictMatchedError extends CliError {
  constructor(selectors: string[]) {
    super(`a result matched --fail-on: ${selectors.join(', ')}`, ExitCode.verdictMatched);
  }
}

/**
 * A share named by `--fail-on selector=share` was exceeded; every output was written first. One
 * line per share exceeded, saying by how much.
 */
export class ShareExceededError extends CliError {
  constructor(lines: string[]) {
    super(lines.join('; '), ExitCode.shareExceeded);
  }
}

/** `bulk results` of a job the service is still working on. */
export class JobNotFinishedError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.jobNotFinished, hint);
  }
}

/**
 * Results came back `unknown` because the verifying side cannot verify (its port 25, resolver or
 * proxy): nothing is known of those addresses, so this must not pass for a clean run.
 */
export class CannotVerifyError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.cannotVerify, hint);
  }
}

/** Ctrl-C (or another stop signal) ended a command early; the message says what to do to resume. */
export class InterruptedError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.interrupted, hint);
  }
}
