import { DEFAULT_RATE_LIMIT, DEFAULT_RATE_WINDOW_SECONDS, hashPassword } from '../../../server/admin.js';
import { UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { switchFlag, textArg, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { adminStore, withStore, type AdminStore } from './support/store.js';
import { newPassword, parseWholeNumber, printUser } from './support/users.js';

export interface UserAddOptions {
  store: AdminStore;
  email: string;
  credits: number;
  rateLimit: number;
  /** --password-stdin: the account gets a login password, read from stdin. */
  passwordStdin: boolean;
}

function requireAddress(email: string): string {
  const trimmed = email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(trimmed)) throw new UsageError(`"${email}" is not an email address`);
  return trimmed;
}

export function parse(parsed: ParsedCommand): UserAddOptions {
  const { flags } = parsed;
  const email = requireAddress(textArg(parsed, 0));
  const credits = textFlag(flags, 'credits');
  const rateLimit = textFlag(flags, 'rateLimit');
  return {
    store: adminStore(parsed),
    email,
    credits: credits === undefined ? 0 : parseWholeNumber(credits, '--credits', 0),
    rateLimit: rateLimit === undefined ? DEFAULT_RATE_LIMIT : parseWholeNumber(rateLimit, '--rate-limit', 1),
    passwordStdin: switchFlag(flags, 'passwordStdin'),
  };
}

export async function run({ store: where, email, credits, rateLimit, passwordStdin }: UserAddOptions, out: Io): Promise<void> {
  // Hashing happens before the store is opened, so the write lock is held only for the insert.
  const passwordHash = passwordStdin ? await hashPassword(await newPassword(out.stdin)) : null;
  const user = await withStore(where, out.env, (store) =>
    store.accounts.createUser({ email, passwordHash, balance: credits, rateLimit, rateWindowSeconds: DEFAULT_RATE_WINDOW_SECONDS }),
  );
  printUser(out, user);
}
