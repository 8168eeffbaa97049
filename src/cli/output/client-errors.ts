import {
  ApiError,
  BadRequestError,
  ForbiddenError,
  DeviceLoginError,
  InsufficientTokensError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
} from '../../client/errors.js';
import { ConfigError, KeyringError } from '../../config/errors.js';
import { fsErrorText, isFsError } from '../../text/fs-errors.js';
import { CsvError } from '../../csv/errors.js';
import { CliError, ExitCode, WITHOUT_A_SERVICE, type ExitCodeValue } from './errors.js';

interface Mapping {
  type: abstract new (...args: never[]) => Error;
  exitCode: ExitCodeValue;
  hint: (error: never, env: NodeJS.ProcessEnv) => string | undefined;
}

/** `mailverify login` cannot help while MAILVERIFY_TOKEN overrides the token it would store. */
function unauthorizedHint(_error: UnauthorizedError, env: NodeJS.ProcessEnv): string {
  if (env.MAILVERIFY_TOKEN) return 'the service refused the token in MAILVERIFY_TOKEN: set a valid one, or unset it to use the one `mailverify login` stores';
  return 'run `mailverify login`';
}

/** A token refused for its scopes (docs/api.md "Token scopes") will not do better later: say what will. */
function apiErrorHint(error: ApiError): string {
  if (error.code === 'insufficient_scope')
    return 'use a token with that scope (`mailverify tokens create --scope …` with a token that has `account`, or `mailverify login`)';
  if (error.code === 'beyond_token_grant') return 'ask for scopes and an expiry within those of the token in use (`mailverify whoami` shows them)';
  return 'try again later; --debug shows the requests';
}

/** The csv layer's own hint, else, when another column may do, this CLI's way to name one. */
function csvHint(error: CsvError): string | undefined {
  return error.hint ?? (error.columnProblem ? 'name the column that holds the addresses with --column <name|number>' : undefined);
}

/**
 * docs/architecture.md "The CLI"'s exit codes for the errors of the client, config and csv layers, each with a hint at what to do next; first
 * match wins, so subclasses come first.
 */
const MAPPINGS: Mapping[] = [
  { type: UnauthorizedError, exitCode: ExitCode.unauthenticated, hint: unauthorizedHint },
  // A token that lacks a scope is fixed as a missing login is, by another token: not by trying again.
  { type: ForbiddenError, exitCode: ExitCode.unauthenticated, hint: apiErrorHint },
  { type: DeviceLoginError, exitCode: ExitCode.unauthenticated, hint: () => 'run `mailverify login --web` again' },
  { type: InsufficientTokensError, exitCode: ExitCode.insufficientTokens, hint: () => 'ask the service operator for more tokens' },
  { type: RateLimitedError, exitCode: ExitCode.rateLimited, hint: () => 'gave up after retrying; try again later or ask for a higher rate limit' },
  { type: NotFoundError, exitCode: ExitCode.notFound, hint: () => 'check the id; jobs of other accounts are not visible (`mailverify whoami` names this one)' },
  { type: BadRequestError, exitCode: ExitCode.usage, hint: () => 'the service refused the request; --debug shows it' },
  { type: PayloadTooLargeError, exitCode: ExitCode.usage, hint: () => "the service's limits are lower than this CLI's; split the list" },
  { type: ApiError, exitCode: ExitCode.failure, hint: apiErrorHint },
  { type: NetworkError, exitCode: ExitCode.failure, hint: () => `is the service running there? check --base-url; ${WITHOUT_A_SERVICE}` },
  { type: InvalidResponseError, exitCode: ExitCode.failure, hint: () => 'is that the service? check --base-url' },
  { type: ConfigError, exitCode: ExitCode.failure, hint: (error: ConfigError) => `fix or delete ${error.path}` },
  { type: KeyringError, exitCode: ExitCode.failure, hint: () => 'unlock the OS keyring, or run this where it answers' },
  { type: CsvError, exitCode: ExitCode.usage, hint: csvHint },
];

function messageOf(error: Error): string {
  if (error instanceof InsufficientTokensError && error.balance !== undefined && error.required !== undefined) {
    return `insufficient tokens: balance ${error.balance}, ${error.required} required`;
  }
  if (error instanceof DeviceLoginError) return `the browser login did not complete (${error.code}): ${error.message}`;
  if (error instanceof ApiError) return `the service answered ${error.status} (${error.code}): ${error.message}`;
  return error.message;
}

/**
 * The CliError for an error of the client, config or csv layers, or for a path the user named that
 * cannot be used (exit 2, the path and what is wrong with it); undefined for anything else.
 */
export function cliErrorFor(error: unknown, env: NodeJS.ProcessEnv = process.env): CliError | undefined {
  if (!(error instanceof Error)) return undefined;
  if (isFsError(error) && error.path !== undefined) return new CliError(`${error.path}: ${fsErrorText(error)}`, ExitCode.usage);
  const mapping = MAPPINGS.find(({ type }) => error instanceof type);
  if (mapping === undefined) return undefined;
  return new CliError(messageOf(error), mapping.exitCode, mapping.hint(error as never, env));
}
