import { hostname } from 'node:os';
import type { Command } from 'commander';
import type { TokenInfo } from '../../client/types.js';
import { terminalSafe, toSafeJson } from '../../text/sanitize.js';
import { API_SCOPES, type ApiScope } from '../../wire/contract.js';
import { durationMs } from '../engine-flags.js';
import { UsageError } from '../errors.js';
import { withClient } from '../with-client.js';

/** `mailverify tokens …`: the account's API tokens, with their scopes and expiry (docs/api.md "Token scopes"). */

interface CreateFlags {
  name?: string;
  scope?: string[];
  expires?: string;
}

/** `--scope`, repeatable or comma-separated; none: every scope (the service's default). */
function scopesOf(given: string[] | undefined): ApiScope[] | undefined {
  if (given === undefined) return undefined;
  const scopes = given.flatMap((each) => each.split(',')).map((each) => each.trim()).filter(Boolean);
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

/** Creates a token and prints only the secret on stdout (as `admin token create`), so that `$(mailverify tokens create)` is the token. */
export async function runTokensCreate(command: Command): Promise<void> {
  const flags = command.opts<CreateFlags>();
  const scopes = scopesOf(flags.scope);
  const expiresIn = expiresInOf(flags.expires);
  await withClient(command, async (client, io) => {
    const created = await client.createToken(flags.name ?? `mailverify-${hostname()}`, {
      ...(scopes === undefined ? {} : { scopes }),
      ...(expiresIn === undefined ? {} : { expiresIn }),
    });
    if (io.json) return void io.stdout.write(`${toSafeJson(created)}\n`);
    io.stdout.write(`${created.token}\n`);
    if (!io.quiet) {
      io.stderr.write(`token ${created.id} "${terminalSafe(created.name)}" created: ${describeGrant(created)}; the token above is not shown again\n`);
    }
  });
}

function describeGrant({ scopes, expiresAt }: Pick<TokenInfo, 'scopes' | 'expiresAt'>): string {
  return `scopes ${scopes.join(', ')}, ${expiresAt === null ? 'never expires' : `expires ${expiresAt}`}`;
}

export async function runTokensList(command: Command): Promise<void> {
  await withClient(command, async (client, io) => {
    const tokens = await client.listTokens();
    if (io.json) return void io.stdout.write(`${toSafeJson(tokens)}\n`);
    const now = Date.now();
    for (const token of tokens) {
      const expired = token.expiresAt !== null && Date.parse(token.expiresAt) <= now;
      const expiry = token.expiresAt === null ? 'never expires' : expired ? io.color.red(`expired ${token.expiresAt}`) : `expires ${token.expiresAt}`;
      io.stdout.write(`${token.id}  ${terminalSafe(token.name)}  ${token.scopes.join(',')}  ${expiry}  last used ${token.lastUsedAt ?? 'never'}\n`);
    }
  });
}

export async function runTokensRevoke(id: string, command: Command): Promise<void> {
  await withClient(command, async (client, io) => {
    await client.deleteToken(id);
    if (!io.quiet) io.stderr.write(`token ${terminalSafe(id)} revoked\n`);
  });
}
