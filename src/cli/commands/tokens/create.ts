import { hostname } from 'node:os';
import type { TokenInfo } from '../../../client/types.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { API_SCOPES, type ApiScope } from '../../../wire/contract.js';
import { durationMs } from '../../options/engine-flags.js';
import { UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { listFlag, switchFlag, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { withClient } from '../../session/with-client.js';

/** `tokens create`'s options, checked (docs/api.md "Token scopes"). */
export interface CreateOptions {
  program: ProgramOptions;
  name?: string;
  /** None: every scope (the service's default). */
  scopes?: ApiScope[];
  /** Seconds from now; none: never expires. */
  expiresIn?: number;
  /** `--test`: a test token (docs/api.md "Sandbox"). */
  test: boolean;
}

/** `--scope`, repeatable or comma-separated; none: every scope (the service's default). */
function scopesOf(given: string[] | undefined): ApiScope[] | undefined {
  if (given === undefined) return undefined;
  const scopes = given
    .flatMap((each) => each.split(','))
    .map((each) => each.trim())
    .filter(Boolean);
  const unknown = scopes.find((scope) => !(API_SCOPES as readonly string[]).includes(scope));
  if (unknown !== undefined) throw new UsageError(`--scope: "${unknown}" is no scope; the scopes are ${API_SCOPES.join(', ')}`);
  return [...new Set(scopes)] as ApiScope[];
}

/** `--expires 90d` (or 12h, 30m, 3600): sent as `expiresIn` seconds, so that this machine's clock does not matter. */
function expiresInOf(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  const seconds = durationMs(given, '--expires') / 1_000;
  // The API takes whole seconds: `1500ms` would be no expiry it accepts.
  if (seconds < 1 || !Number.isInteger(seconds)) throw new UsageError('--expires: give a whole number of seconds of at least 1s, such as 90d');
  return seconds;
}

/** `tokens create`'s command line as options, or a UsageError. */
export function parse(parsed: ParsedCommand): CreateOptions {
  const { flags } = parsed;
  const scopes = scopesOf(listFlag(flags, 'scope'));
  return {
    program: programOptions(parsed.program),
    name: textFlag(flags, 'name'),
    scopes,
    expiresIn: expiresInOf(textFlag(flags, 'expires')),
    test: switchFlag(flags, 'test'),
  };
}

function describeGrant({ scopes, expiresAt, test }: Pick<TokenInfo, 'scopes' | 'expiresAt' | 'test'>): string {
  return `${test ? 'a test token (sandbox answers, nothing charged), ' : ''}scopes ${scopes.join(', ')}, ${expiresAt === null ? 'never expires' : `expires ${expiresAt}`}`;
}

/** Creates a token and prints only the secret on stdout (as `admin token create`), so that `$(mailverify tokens create)` is the token. */
export async function run({ program, name, scopes, expiresIn, test }: CreateOptions, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    const created = await client.createToken(name ?? `mailverify-${hostname()}`, {
      ...(scopes === undefined ? {} : { scopes }),
      ...(expiresIn === undefined ? {} : { expiresIn }),
      ...(test ? { test } : {}),
    });
    if (io.json) return void io.stdout.write(`${toSafeJson(created)}\n`);
    io.stdout.write(`${created.token}\n`);
    if (!io.quiet) {
      io.stderr.write(`token ${created.id} "${terminalSafe(created.name)}" created: ${describeGrant(created)}; the token above is not shown again\n`);
    }
  });
}
