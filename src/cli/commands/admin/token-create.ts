import { generateApiToken, hashApiToken } from '../../../server/admin.js';
import type { Io } from '../../output/io.js';
import { textArg, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { adminStore, withStore, type AdminStore } from './support/store.js';
import { findUser } from './support/users.js';

export interface TokenCreateOptions {
  store: AdminStore;
  email: string;
  name: string;
}

export function parse(parsed: ParsedCommand): TokenCreateOptions {
  return { store: adminStore(parsed), email: textArg(parsed, 0), name: textFlag(parsed.flags, 'name') ?? 'admin' };
}

/** Prints nothing but the new token, for scripts. */
export async function run({ store: where, email, name }: TokenCreateOptions, out: Io): Promise<void> {
  const token = generateApiToken();
  await withStore(where, out.env, async (store) => store.tokens.createApiToken((await findUser(store, email)).id, name, hashApiToken(token)));
  out.stdout.write(`${token}\n`);
}
