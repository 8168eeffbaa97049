import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import type { ParsedCommand } from '../../options/parsed-command.js';
import { adminStore, withStore, type AdminStore } from './support/store.js';
import { publicUser } from './support/users.js';

export interface UserListOptions {
  store: AdminStore;
}

export function parse(parsed: ParsedCommand): UserListOptions {
  return { store: adminStore(parsed) };
}

/** Every user with balance, rate limit, whether they have a password, and when they were made. */
export async function run({ store: where }: UserListOptions, out: Io): Promise<void> {
  const users = await withStore(where, out.env, (store) => store.accounts.listUsers());
  if (out.json) {
    out.stdout.write(`${toSafeJson(users.map(publicUser))}\n`);
    return;
  }
  const rows = [
    ['EMAIL', 'BALANCE', 'RATE LIMIT', 'PASSWORD', 'CREATED'],
    ...users.map((user) => [
      terminalSafe(user.email),
      String(user.balance),
      `${user.rateLimit}/${user.rateWindowSeconds}s`,
      user.passwordHash === null ? 'no' : 'yes',
      user.createdAt,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    out.stdout.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}
