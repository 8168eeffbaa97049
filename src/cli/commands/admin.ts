import type { Command } from 'commander';
import { generateApiToken, hashApiToken } from '../../server/auth/api-tokens.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { resolveDataDir } from '../../server/store/data-dir.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../server/auth/passwords.js';
import { openStore, type StoreLocation } from '../../server/store/open-store.js';
import { DATABASE_FILE } from '../../server/store/sqlite-store.js';
import { DEFAULT_RATE_LIMIT, DEFAULT_RATE_WINDOW_SECONDS, StoreError, type Store, type User } from '../../server/store/store.js';
import { terminalSafe, toSafeJson } from '../../text/sanitize.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { createIo, type Io } from '../io.js';
import { readPasswordLine } from '../prompt.js';
import { databaseUrlFrom, storeLocationFrom, storeUnavailable, type StoreFlags } from '../store-location.js';

/**
 * `mailverify admin …`: the operator's commands, against the store of `serve`: its data dir (on its
 * host; the same SQLite file as a running server, which WAL and a busy timeout make safe) or its
 * PostgreSQL database (from anywhere that reaches it). They print their data on stdout; `token
 * create` prints nothing but the token, for scripts.
 */

interface AdminFlags extends StoreFlags {
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  credits?: string;
  rateLimit?: string;
  passwordStdin?: boolean;
  name?: string;
  window?: string;
  create?: boolean;
}

/** A new account's password from stdin, refused when shorter than MIN_PASSWORD_LENGTH characters. */
async function newPassword(stdin: NodeJS.ReadableStream): Promise<string> {
  const password = await readPasswordLine(stdin);
  if ([...password].length < MIN_PASSWORD_LENGTH) throw new UsageError(`the password is too short: at least ${MIN_PASSWORD_LENGTH} characters`);
  return password;
}

/** The account fields an operator sees; never the password hash. */
function publicUser(user: User) {
  return {
    email: user.email,
    balance: user.balance,
    rateLimit: { limit: user.rateLimit, windowSeconds: user.rateWindowSeconds },
    hasPassword: user.passwordHash !== null,
    createdAt: user.createdAt,
  };
}

/** A whole number from a flag or argument (at least `min` when given), or a usage error naming it. */
function parseWholeNumber(raw: string, what: string, min?: number): number {
  const value = Number(raw);
  const whole = /^\s*-?\d+\s*$/.test(raw) && Number.isSafeInteger(value);
  if (!whole || (min !== undefined && value < min)) {
    throw new UsageError(`${what} must be a whole number${min === undefined ? '' : ` of at least ${min}`}; got "${raw}"`);
  }
  return value;
}

function requireAddress(email: string): string {
  const trimmed = email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(trimmed)) throw new UsageError(`"${email}" is not an email address`);
  return trimmed;
}

/**
 * The store to open: a database URL as given, else a data dir that holds a database, or (with
 * --create only) one made ready for a new database. Without --create a mistyped --data-dir is an
 * error that says where it looked, rather than an empty database created there that lists no users.
 */
async function storeLocation(flags: AdminFlags): Promise<StoreLocation> {
  if (flags.create || databaseUrlFrom(flags) !== undefined) return storeLocationFrom(flags);
  const dir = resolveDataDir(flags.dataDir);
  const file = join(dir, DATABASE_FILE);
  if (!existsSync(file)) {
    throw new UsageError(`no mailverify database in ${dir} (looked for ${file})`, 'check --data-dir or MAILVERIFY_DATA_DIR, or add --create to make a new one there');
  }
  return { dataDir: dir };
}

/** Opens the store for one command and always closes it, so no lock or connection outlives the command. */
async function withStore<T>(flags: AdminFlags, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(await storeLocation(flags)).catch((error: unknown) => {
    throw storeUnavailable(error) ?? error;
  });
  try {
    return await work(store);
  } catch (error) {
    // A taken address or a balance that would go negative is bad input from the operator: exit 2.
    if (error instanceof StoreError && (error.code === 'user_exists' || error.code === 'negative_balance')) {
      throw new UsageError(error.message);
    }
    throw error;
  } finally {
    await store.close();
  }
}

async function findUser(store: Store, email: string): Promise<User> {
  const user = await store.accounts.findUserByEmail(email.trim());
  if (!user) throw new CliError(`no user ${email}`, ExitCode.notFound, 'add one with `mailverify admin user add <email>`');
  return user;
}

function setup(command: Command): { flags: AdminFlags; out: Io } {
  const flags = command.optsWithGlobals<AdminFlags>();
  return { flags, out: createIo(flags) };
}

function printUser(out: Io, user: User): void {
  const shown = publicUser(user);
  out.stdout.write(
    out.json
      ? `${toSafeJson(shown)}\n`
      : `${terminalSafe(shown.email)}  balance ${shown.balance}  rate limit ${shown.rateLimit.limit}/${shown.rateLimit.windowSeconds}s\n`,
  );
}

export async function runAdminUserAdd(email: string, command: Command): Promise<void> {
  const { flags, out } = setup(command);
  const address = requireAddress(email);
  const credits = flags.credits === undefined ? 0 : parseWholeNumber(flags.credits, '--credits', 0);
  const rateLimit = flags.rateLimit === undefined ? DEFAULT_RATE_LIMIT : parseWholeNumber(flags.rateLimit, '--rate-limit', 1);
  // Hashing happens before the store is opened, so the write lock is held only for the insert.
  const passwordHash = flags.passwordStdin ? await hashPassword(await newPassword(out.stdin)) : null;
  const user = await withStore(flags, (store) =>
    store.accounts.createUser({ email: address, passwordHash, balance: credits, rateLimit, rateWindowSeconds: DEFAULT_RATE_WINDOW_SECONDS }),
  );
  printUser(out, user);
}

/**
 * `admin user delete <email>`: the user and everything of theirs leave the store (AccountStore.deleteUser):
 * tokens, sessions, jobs with their addresses and results, webhooks, their verdicts in the result
 * cache, and their ledger. Prints what was deleted; a signed-in session or token stops working at once.
 */
export async function runAdminUserDelete(email: string, command: Command): Promise<void> {
  const { flags, out } = setup(command);
  const user = await withStore(flags, async (store) => {
    const found = await findUser(store, email);
    if (!(await store.accounts.deleteUser(found.id))) throw new CliError(`no user ${email}`, ExitCode.notFound);
    return found;
  });
  if (out.json) out.stdout.write(`${toSafeJson({ email: user.email, deleted: true })}\n`);
  else if (!out.quiet) out.stderr.write(`user ${terminalSafe(user.email)} deleted, with their tokens, jobs, results, webhooks and ledger\n`);
}

export async function runAdminUserList(command: Command): Promise<void> {
  const { flags, out } = setup(command);
  const users = await withStore(flags, (store) => store.accounts.listUsers());
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
  for (const row of rows) out.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()}\n`);
}

export async function runAdminCreditsAdd(email: string, amount: string, command: Command): Promise<void> {
  const { flags, out } = setup(command);
  // Negative amounts (after `--`) take credits back; the store refuses to go below zero.
  const delta = parseWholeNumber(amount, 'the number of credits');
  if (delta === 0) throw new UsageError('the number of credits must not be 0');
  const user = await withStore(flags, async (store) => {
    const found = await findUser(store, email);
    return { ...found, balance: await store.accounts.grantCredits(found.id, delta) };
  });
  printUser(out, user);
}

/** "Contact support" for a higher limit (docs/api.md) ends here: a running server applies it from the next request. */
export async function runAdminRateLimitSet(email: string, limit: string, command: Command): Promise<void> {
  const { flags, out } = setup(command);
  const requests = parseWholeNumber(limit, 'the number of requests', 1);
  const window = flags.window === undefined ? undefined : parseWholeNumber(flags.window, '--window', 1);
  const user = await withStore(flags, async (store) => {
    const found = await findUser(store, email);
    const windowSeconds = window ?? found.rateWindowSeconds;
    await store.accounts.setRateLimit(found.id, requests, windowSeconds);
    return { ...found, rateLimit: requests, rateWindowSeconds: windowSeconds };
  });
  printUser(out, user);
}

export async function runAdminTokenCreate(email: string, command: Command): Promise<void> {
  const { flags, out } = setup(command);
  const token = generateApiToken();
  await withStore(flags, async (store) => store.tokens.createApiToken((await findUser(store, email)).id, flags.name ?? 'admin', hashApiToken(token)));
  out.stdout.write(`${token}\n`);
}
