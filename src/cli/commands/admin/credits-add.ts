import { UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { textArg, type ParsedCommand } from '../../options/parsed-command.js';
import { adminStore, withStore, type AdminStore } from './support/store.js';
import { findUser, parseWholeNumber, printUser } from './support/users.js';

export interface CreditsAddOptions {
  store: AdminStore;
  email: string;
  /** Negative (after `--`) takes credits back; the store refuses to go below zero. */
  delta: number;
}

export function parse(parsed: ParsedCommand): CreditsAddOptions {
  const delta = parseWholeNumber(textArg(parsed, 1), 'the number of credits');
  if (delta === 0) throw new UsageError('the number of credits must not be 0');
  return { store: adminStore(parsed), email: textArg(parsed, 0), delta };
}

export async function run({ store: where, email, delta }: CreditsAddOptions, out: Io): Promise<void> {
  const user = await withStore(where, out.env, async (store) => {
    const found = await findUser(store, email);
    return { ...found, balance: await store.accounts.grantCredits(found.id, delta) };
  });
  printUser(out, user);
}
