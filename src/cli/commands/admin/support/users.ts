import { MIN_PASSWORD_LENGTH } from '../../../../server/admin.js';
import type { Store, User } from '../../../../server/store/open/open-store.js';
import { terminalSafe, toSafeJson } from '../../../../text/sanitize.js';
import { CliError, ExitCode, UsageError } from '../../../output/errors.js';
import type { Io } from '../../../output/io.js';
import { readPasswordLine } from '../../../output/prompt.js';

/** The account fields an operator sees; never the password hash. */
export function publicUser(user: User) {
  return {
    email: user.email,
    balance: user.balance,
    rateLimit: { limit: user.rateLimit, windowSeconds: user.rateWindowSeconds },
    hasPassword: user.passwordHash !== null,
    createdAt: user.createdAt,
  };
}

export function printUser(out: Io, user: User): void {
  const shown = publicUser(user);
  out.stdout.write(
    out.json
      ? `${toSafeJson(shown)}\n`
      : `${terminalSafe(shown.email)}  balance ${shown.balance}  rate limit ${shown.rateLimit.limit}/${shown.rateLimit.windowSeconds}s\n`,
  );
}

export async function findUser(store: Store, email: string): Promise<User> {
  const user = await store.accounts.findUserByEmail(email.trim());
  if (!user) throw new CliError(`no user ${email}`, ExitCode.notFound, 'add one with `mailverify admin user add <email>`');
  return user;
}

/** A whole number from a flag or argument (at least `min` when given), or a usage error naming it. */
export function parseWholeNumber(raw: string, what: string, min?: number): number {
  const value = Number(raw);
  const whole = /^\s*-?\d+\s*$/.test(raw) && Number.isSafeInteger(value);
  if (!whole || (min !== undefined && value < min)) {
    throw new UsageError(`${what} must be a whole number${min === undefined ? '' : ` of at least ${min}`}; got "${raw}"`);
  }
  return value;
}

/** A password for an account from stdin (`--password-stdin`), refused when shorter than MIN_PASSWORD_LENGTH characters. */
export async function newPassword(stdin: NodeJS.ReadableStream): Promise<string> {
  const password = await readPasswordLine(stdin);
  if ([...password].length < MIN_PASSWORD_LENGTH) throw new UsageError(`the password is too short: at least ${MIN_PASSWORD_LENGTH} characters`);
  return password;
}
