import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { CliError, ExitCode } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { textArg, type ParsedCommand } from '../../options/parsed-command.js';
import { adminStore, withStore, type AdminStore } from './support/store.js';
import { findUser } from './support/users.js';

/** The account named: `user delete` and `token create` start from it. */
export interface UserOptions {
  store: AdminStore;
  email: string;
}

export function parse(parsed: ParsedCommand): UserOptions {
  return { store: adminStore(parsed), email: textArg(parsed, 0) };
}

/**
 * `admin user delete <email>`: the user and everything of theirs leave the store (AccountStore.deleteUser):
 * tokens, sessions, jobs with their addresses and results, webhooks, their verdicts in the result
 * cache, and their ledger. Prints what was deleted; a signed-in session or token stops working at once.
 */
export async function run({ store: where, email }: UserOptions, out: Io): Promise<void> {
  const user = await withStore(where, out.env, async (store) => {
    const found = await findUser(store, email);
    if (!(await store.accounts.deleteUser(found.id))) throw new CliError(`no user ${email}`, ExitCode.notFound);
    return found;
  });
  if (out.json) out.stdout.write(`${toSafeJson({ email: user.email, deleted: true })}\n`);
  else if (!out.quiet) out.stderr.write(`user ${terminalSafe(user.email)} deleted, with their tokens, jobs, results, webhooks and ledger\n`);
}
