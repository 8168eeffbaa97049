import { terminalSafe, toSafeJson } from '../../text/sanitize.js';
import { counted, ratePhrase } from '../output/format.js';
import type { Io } from '../output/io.js';
import type { ProgramOnly } from '../options/program-options.js';
import { createSession, tokenOrigin } from '../session/session.js';

export { programOnly as parse } from '../options/program-options.js';

/** Who the token belongs to and where things come from; never the token itself. */
export async function run({ program }: ProgramOnly, io: Io): Promise<void> {
  const session = createSession(program, io);
  try {
    const { settings } = session;
    const { email, balance, rateLimit, refundUnknown, token } = await session.authenticatedClient().account();
    const { baseUrl, tokenSource, profile } = settings;
    if (io.json) {
      io.stdout.write(`${toSafeJson({ email, balance, rateLimit, refundUnknown, token, baseUrl, profile, tokenSource })}\n`);
      return;
    }
    const { limit, windowSeconds } = rateLimit;
    const rows: [string, string][] = [
      ['account', email],
      ['balance', counted(balance, 'token')],
      ['rate limit', ratePhrase(limit, windowSeconds)],
      // Said only by a service that says it: another server of the contract may not.
      ...(refundUnknown === undefined
        ? []
        : [['unknowns', refundUnknown ? 'refunded (an unknown result costs nothing)' : 'charged like any result'] as [string, string]]),
      // Said only by a service that says it (docs/api.md "Token scopes").
      ...(token === undefined
        ? []
        : ([
            ['scopes', token.scopes.join(', ')],
            ['expires', token.expiresAt ?? (token.kind === 'login' ? 'with the login' : 'never')],
          ] as [string, string][])),
      ['service', baseUrl],
      ['profile', profile],
      ['token from', tokenOrigin(settings)],
    ];
    for (const [label, value] of rows) io.stdout.write(`${io.color.dim(label.padEnd(11))}${terminalSafe(value)}\n`);
  } finally {
    await session.close();
  }
}
