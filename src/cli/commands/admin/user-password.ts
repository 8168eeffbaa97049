import { hashPassword } from '../../../server/admin.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { switchFlag, textArg, type ParsedCommand } from '../../options/parsed-command.js';
import { adminStore, withStore } from './support/store.js';
import { findUser, newPassword } from './support/users.js';
import type { UserOptions } from './user-delete.js';

export function parse(parsed: ParsedCommand): UserOptions {
  // The password is a secret: never an argument, always stdin (as `user add --password-stdin`).
  if (!switchFlag(parsed.flags, 'passwordStdin')) throw new UsageError('give the new password on stdin with --password-stdin');
  return { store: adminStore(parsed), email: textArg(parsed, 0) };
}

/**
 * `admin user password <email> --password-stdin`: a new login password, which ends every sign-in of
 * the user at once (AccountStore.setPassword): their login JWTs and dashboard sessions, on every
 * instance. Their API tokens keep working; `tokens revoke` ends those.
 */
export async function run({ store: where, email }: UserOptions, out: Io): Promise<void> {
  // Hashing happens before the store is opened, so the write lock is held only for the update.
  const passwordHash = await hashPassword(await newPassword(out.stdin));
  const user = await withStore(where, out.env, async (store) => {
    const found = await findUser(store, email);
    await store.accounts.setPassword(found.id, passwordHash);
    return found;
  });
  if (out.json) out.stdout.write(`${toSafeJson({ email: user.email, passwordChanged: true })}\n`);
  else if (!out.quiet) out.stderr.write(`password of ${terminalSafe(user.email)} changed; their login tokens and dashboard sessions ended\n`);
}
