import type { Io } from '../../output/io.js';
import { textArg, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { adminStore, withStore, type AdminStore } from './support/store.js';
import { findUser, parseWholeNumber, printUser } from './support/users.js';

export interface RateLimitSetOptions {
  store: AdminStore;
  email: string;
  requests: number;
  /** --window in seconds; none: the user's current one. */
  window?: number;
}

export function parse(parsed: ParsedCommand): RateLimitSetOptions {
  const requests = parseWholeNumber(textArg(parsed, 1), 'the number of requests', 1);
  const window = textFlag(parsed.flags, 'window');
  return { store: adminStore(parsed), email: textArg(parsed, 0), requests, window: window === undefined ? undefined : parseWholeNumber(window, '--window', 1) };
}

/** "Contact support" for a higher limit (docs/api.md) ends here: a running server applies it from the next request. */
export async function run({ store: where, email, requests, window }: RateLimitSetOptions, out: Io): Promise<void> {
  const user = await withStore(where, out.env, async (store) => {
    const found = await findUser(store, email);
    const windowSeconds = window ?? found.rateWindowSeconds;
    await store.accounts.setRateLimit(found.id, requests, windowSeconds);
    return { ...found, rateLimit: requests, rateWindowSeconds: windowSeconds };
  });
  printUser(out, user);
}
