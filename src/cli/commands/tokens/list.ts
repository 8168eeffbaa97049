import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import type { ProgramOnly } from '../../options/program-options.js';
import { withClient } from '../../session/with-client.js';

export { programOnly as parse } from '../../options/program-options.js';

/** The account's tokens with their scopes, expiry and last use; never a secret. */
export async function run({ program }: ProgramOnly, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    const tokens = await client.listTokens();
    if (io.json) return void io.stdout.write(`${toSafeJson(tokens)}\n`);
    const now = Date.now();
    for (const token of tokens) {
      const expired = token.expiresAt !== null && Date.parse(token.expiresAt) <= now;
      const expiry = token.expiresAt === null ? 'never expires' : expired ? io.color.red(`expired ${token.expiresAt}`) : `expires ${token.expiresAt}`;
      const kind = token.test ? '  test' : '';
      io.stdout.write(`${token.id}  ${terminalSafe(token.name)}${kind}  ${token.scopes.join(',')}  ${expiry}  last used ${token.lastUsedAt ?? 'never'}\n`);
    }
  });
}
