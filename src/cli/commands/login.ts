import { hostname } from 'node:os';
import { UnauthorizedError } from '../../client/errors.js';
import type { Account } from '../../client/types.js';
import { saveLogin } from '../../config/credentials.js';
import { KeyringError } from '../../config/errors.js';
import { NotAuthenticatedError, UsageError } from '../output/errors.js';
import { askHidden, askLine, readAll, readPasswordLine } from '../output/prompt.js';
import { canAsk, type Io } from '../output/io.js';
import { switchFlag, textFlag, unlessNegated, type ParsedCommand } from '../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../options/program-options.js';
import { createSession, type Session } from '../session/session.js';
import { tokenFromBrowser } from './support/device-login.js';
import { revokeLogin, storedLogin, type StoredLogin } from './support/stored-token.js';

/** `login`'s options; how they combine is checked once the session says where stdin is (checkFlags). */
export interface LoginOptions {
  program: ProgramOptions;
  withToken: boolean;
  email?: string;
  passwordStdin: boolean;
  insecureStorage: boolean;
  /** Log in through the browser (the device grant) rather than with a password or a token. */
  web: boolean;
  /** With `web`: open the page in a browser when someone is at the terminal (`--no-browser`: never). */
  browser: boolean;
}

export function parse(parsed: ParsedCommand): LoginOptions {
  const { flags } = parsed;
  return {
    program: programOptions(parsed.program),
    withToken: switchFlag(flags, 'withToken'),
    email: textFlag(flags, 'email'),
    passwordStdin: switchFlag(flags, 'passwordStdin'),
    insecureStorage: switchFlag(flags, 'insecureStorage'),
    web: switchFlag(flags, 'web'),
    browser: unlessNegated(flags, 'browser'),
  };
}

/** A token about to be stored; `revoke` undoes its creation when the check fails. */
interface Credential {
  token: string;
  /** Set when this CLI created the token, so that logout may revoke it. */
  tokenId?: string;
  revoke?: () => Promise<void>;
}

const SCRIPT_HINT = 'use --with-token, or --email with --password-stdin';

/** Secrets only ever come from stdin or a hidden prompt, never from argv, which `ps` shows to everyone. */
function checkFlags(flags: LoginOptions, io: Io): void {
  if (flags.web && (flags.withToken || flags.email !== undefined || flags.passwordStdin)) {
    throw new UsageError('--web cannot be combined with --with-token, --email or --password-stdin');
  }
  if (!flags.browser && !flags.web) throw new UsageError('--no-browser goes with --web');
  // The browser asks nobody at this terminal anything: it works in scripts and without a TTY.
  if (flags.web) return;
  if (flags.withToken && (flags.email !== undefined || flags.passwordStdin)) {
    throw new UsageError('--with-token cannot be combined with --email or --password-stdin');
  }
  if (flags.passwordStdin && flags.email === undefined) throw new UsageError('--password-stdin needs --email');
  if (!flags.withToken && !flags.passwordStdin && !canAsk(io)) {
    const why = io.stdin.isTTY ? '--no-input (or CI) says nobody will type' : 'stdin is not a terminal';
    throw new UsageError(`${why}, so there is nobody to ask for a password`, SCRIPT_HINT);
  }
  if (flags.withToken && io.stdin.isTTY && io.noInput) {
    throw new UsageError('--with-token reads stdin, which is a terminal, and --no-input (or CI) says nobody will type there', 'pipe the token in');
  }
}

function required(value: string, what: string): string {
  if (value === '') throw new UsageError(`no ${what} given`);
  return value;
}

async function tokenFromStdin({ io }: Session): Promise<Credential> {
  const raw = io.stdin.isTTY ? await askHidden(io.stdin, io.stderr, 'Token: ') : await readAll(io.stdin);
  const token = required(raw.trim(), 'token on stdin');
  if (/\s/.test(token)) throw new UsageError('stdin must hold exactly one token');
  return { token };
}

/** Email and password → a short-lived JWT → a long-lived `mv_` token named for this machine. */
async function tokenFromPassword(flags: LoginOptions, session: Session): Promise<Credential> {
  const { io } = session;
  const email = required((flags.email ?? (await askLine(io.stdin, io.stderr, 'Email: '))).trim(), 'email');
  const password = flags.passwordStdin ? await readPasswordLine(io.stdin) : required(await askHidden(io.stdin, io.stderr, 'Password: '), 'password');

  let jwt: string;
  try {
    ({ token: jwt } = await session.client({}).login(email, password));
  } catch (error) {
    if (error instanceof UnauthorizedError) throw new NotAuthenticatedError('wrong email or password');
    throw error;
  }
  const withJwt = session.client({ token: jwt });
  const created = await withJwt.createToken(`mailverify-${hostname()}`);
  return { token: created.token, tokenId: created.id, revoke: () => withJwt.deleteToken(created.id) };
}

/** Approved in a browser where the person is signed in (the device grant): a new `mv_` token named for this machine. */
async function tokenFromWeb(flags: LoginOptions, session: Session): Promise<Credential> {
  const { access_token: token, token_id: tokenId } = await tokenFromBrowser(session, { clientName: `mailverify-${hostname()}`, browser: flags.browser });
  return { token, tokenId, revoke: () => session.client({ token }).deleteToken(tokenId) };
}

/** The token must work before it is stored: a typo should fail now, not at the next command. */
async function checkToken(session: Session, credential: Credential): Promise<Account> {
  try {
    return await session.client({ token: credential.token }).account();
  } catch (error) {
    await credential.revoke?.().catch(() => undefined);
    if (error instanceof UnauthorizedError) throw new NotAuthenticatedError(`${session.settings.baseUrl} does not accept this token`);
    throw error;
  }
}

/**
 * The token the profile holds before this login, to revoke once the new one is stored (only when
 * this CLI created it, as `logout` does). A keyring that does not answer now keeps none from us.
 */
function previousLogin(session: Session, profile: string): StoredLogin | undefined {
  try {
    return storedLogin(session, profile);
  } catch (error) {
    if (error instanceof KeyringError) return undefined;
    throw error;
  }
}

/** A keyring's own error can be a page of D-Bus text: its first line, cut short, names it well enough. */
const REASON_CHARS = 100;

/**
 * One line: what happened, and the two ways out (a keyring that answers, or the file chosen on
 * purpose). On Linux the keyring is a Secret Service on the D-Bus session, which headless machines
 * and plain SSH sessions lack.
 */
export function noKeyringWarning(reason: string, configPath: string, platform: NodeJS.Platform = process.platform): string {
  const first = reason.split('\n')[0]!.trim();
  const short = first.length > REASON_CHARS ? `${first.slice(0, REASON_CHARS - 1)}…` : first;
  const keyring =
    platform === 'linux'
      ? 'start a Secret Service (GNOME Keyring, KWallet or KeePassXC) in your D-Bus session and log in again'
      : 'unlock the OS keyring and log in again';
  return `no OS keyring answers (${short}), so the token is stored in ${configPath}, readable only by you; to fix: ${keyring}, or log in with --insecure-storage to keep the file and silence this`;
}

/** Stores a token for the service, checked first: read from stdin, made from an email and password, or approved in a browser. */
export async function run(flags: LoginOptions, io: Io): Promise<void> {
  // login makes the profile it is told to use.
  const session = createSession(flags.program, io, { newProfile: true });
  try {
    checkFlags(flags, io);
    const { baseUrl, configPath, profile } = session.settings;
    const previous = previousLogin(session, profile);
    const credential = flags.web
      ? await tokenFromWeb(flags, session)
      : flags.withToken
        ? await tokenFromStdin(session)
        : await tokenFromPassword(flags, session);
    const account = await checkToken(session, credential);
    const stored = saveLogin(session.config, profile, { baseUrl, token: credential.token, tokenId: credential.tokenId }, { insecure: flags.insecureStorage });
    const where = stored.in === 'keyring' ? 'the OS keyring' : configPath;
    // Said even with --quiet: the user chose the keyring by not choosing, and it is not there.
    if (stored.in === 'file' && stored.fallback !== undefined) session.warn(noKeyringWarning(stored.fallback, configPath));
    session.notice(`Logged in to ${baseUrl} as ${account.email} (profile ${profile}); the token is stored in ${where}`);
    // Only once the new token works and is stored: a login that fails leaves the old one working.
    if (previous !== undefined && previous.token !== credential.token && (await revokeLogin(session, previous))) {
      session.notice('The token this profile held before was revoked');
    }
    if (session.settings.tokenSource === 'environment') session.warn('MAILVERIFY_TOKEN is set and is used instead of the stored token until you unset it');
  } finally {
    await session.close();
  }
}
