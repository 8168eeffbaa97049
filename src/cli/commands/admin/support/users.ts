import type { Store, User } from '../../../../server/store/store.js';
import { terminalSafe, toSafeJson } from '../../../../text/sanitize.js';
import { CliError, ExitCode, UsageError } from '../../../output/errors.js';
import type { Io } from '../../../output/io.js';

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
