import { createHash, randomBytes } from 'node:crypto';

/** JSON with the keys of every object sorted: the same arguments in any order are the same call. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, each]) => each !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, each]) => `${JSON.stringify(key)}:${canonical(each)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The Idempotency-Key of a tool call that costs tokens (docs/cli.md "For agents"): the caller's
 * `idempotency_key` when it gives one, else a digest of the tool's name, its normalised arguments
 * and a salt drawn when the server starts. An agent that retries a call (a timeout, a lost answer)
 * sends the same arguments, so the service answers the first response again and charges nothing;
 * another session's salt differs, so it is never handed this session's answers.
 */
export function callKeys(salt: string = randomBytes(16).toString('hex')) {
  return (tool: string, args: Record<string, unknown>, given?: string): string => {
    if (given !== undefined) return given;
    return `mcp-${createHash('sha256')
      .update(`${salt}\n${tool}\n${canonical(args)}`)
      .digest('hex')}`;
  };
}

export type CallKeys = ReturnType<typeof callKeys>;
