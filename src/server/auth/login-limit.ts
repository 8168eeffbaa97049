import { setTimeout as sleep } from 'node:timers/promises';
import { clientNetwork } from './client-network.js';
import { fixedWindow, rateLimited } from './rate-limit.js';
import type { LimitStore } from '../store/store.js';

/**
 * Login limits that an attacker cannot turn against an account's owner. Refusals (429) are keyed
 * by the client's network (its address, or for IPv6 its /64: client-network.ts): failures per
 * (account, client network), against guessing one password, and per client network, against
 * trying many accounts. Failures on an account from everywhere
 * only slow its logins down (a growing delay), and a right password is never refused for them:
 * a flood of wrong passwords from one address locks out that address, not the owner elsewhere.
 */

/** Failed logins per account from one client address, per window, before that pair gets 429s. */
export const LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS = 10;
/** Failed logins from one client address per window, whichever accounts; higher, as an office or CI fleet shares an address. */
export const LOGIN_FAILURES_PER_ADDRESS = 30;
export const LOGIN_WINDOW_SECONDS = 60;
/** Failures on one account, from anywhere, within its longer window before its logins start to slow down. */
export const ACCOUNT_FAILURES_BEFORE_DELAY = 10;
const ACCOUNT_WINDOW_SECONDS = 15 * 60;
const FIRST_DELAY_MS = 250;
/** The most a login waits: an owner signing in during an attack waits this long at worst. */
export const MAX_LOGIN_DELAY_MS = 4_000;

/** The delay before a login's password is checked, doubling with each failure past the free ones, capped. */
export function loginDelayMs(accountFailures: number): number {
  const over = accountFailures - ACCOUNT_FAILURES_BEFORE_DELAY;
  return over <= 0 ? 0 : Math.min(MAX_LOGIN_DELAY_MS, FIRST_DELAY_MS * 2 ** (over - 1));
}

/** An admitted login attempt; its outcome is reported once the password was checked. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
  failed(): Promise<void>;
}

/**
 * Admits one login attempt or throws the 429 (with Retry-After) when its client address is over a
 * limit, then waits the account's delay. The attempt is counted before the password is checked,
 * so that parallel guesses cannot slip past the limit together; a success takes it back, so that
 * only failures count. The counts live in the store, shared by every instance. Behind a reverse
 * proxy every client has the proxy's address unless the service trusts it (`--trust-proxy`, which
 * makes the client address the one the proxy read in X-Forwarded-For).
 */
export async function admitLoginAttempt(limits: LimitStore, email: string, clientAddress: string, nowMs = Date.now()): Promise<LoginAttempt> {
  const { windowStart, resetSeconds } = fixedWindow(nowMs, LOGIN_WINDOW_SECONDS);
  const account = `account:${email.toLowerCase()}`;
  const network = clientNetwork(clientAddress);
  const perAddress = [`${account} from:${network}`, `from:${network}`];
  const [pair, address] = await Promise.all(perAddress.map((key) => limits.addToLoginCount(key, windowStart, 1)));
  if (pair! > LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS || address! > LOGIN_FAILURES_PER_ADDRESS) {
    throw rateLimited(resetSeconds, `Too many failed logins from this address; retry in ${resetSeconds} s.`);
  }
  const accountWindow = fixedWindow(nowMs, ACCOUNT_WINDOW_SECONDS).windowStart;
  await sleep(loginDelayMs(await limits.addToLoginCount(account, accountWindow, 0)));
  return {
    async succeeded() {
      await Promise.all(perAddress.map((key) => limits.addToLoginCount(key, windowStart, -1)));
    },
    async failed() {
      await limits.addToLoginCount(account, accountWindow, 1);
    },
  };
}

/** Device logins started from one client network per window (docs/api.md "Logging in from a device"): a person needs one or two. */
export const DEVICE_LOGINS_PER_ADDRESS = 10;

/**
 * Admits the start of a device login, or throws the 429 (with Retry-After) once its client network
 * started DEVICE_LOGINS_PER_ADDRESS in the window: each start writes a request into the store, and
 * its user code is one more to guess among.
 */
export async function admitDeviceLogin(limits: LimitStore, clientAddress: string, nowMs = Date.now()): Promise<void> {
  const { windowStart, resetSeconds } = fixedWindow(nowMs, LOGIN_WINDOW_SECONDS);
  const started = await limits.addToLoginCount(`device from:${clientNetwork(clientAddress)}`, windowStart, 1);
  if (started > DEVICE_LOGINS_PER_ADDRESS) throw rateLimited(resetSeconds, `Too many device logins from this address; retry in ${resetSeconds} s.`);
}

/** Wrong user codes one signed-in account may enter per window before it is refused for the rest of it. */
export const WRONG_USER_CODES_PER_ACCOUNT = 10;

/**
 * The approval page's guard against guessing (a user code is short enough to type): throws the 429
 * once the account entered WRONG_USER_CODES_PER_ACCOUNT codes that match no request in the window.
 * Asked before each look-up; `wrongUserCode` counts one.
 */
export async function admitUserCodeLookup(limits: LimitStore, userId: number, nowMs = Date.now()): Promise<void> {
  const { windowStart, resetSeconds } = fixedWindow(nowMs, LOGIN_WINDOW_SECONDS);
  if ((await limits.addToLoginCount(wrongCodesKey(userId), windowStart, 0)) >= WRONG_USER_CODES_PER_ACCOUNT) {
    throw rateLimited(resetSeconds, `Too many wrong codes; retry in ${resetSeconds} s.`);
  }
}

export async function wrongUserCode(limits: LimitStore, userId: number, nowMs = Date.now()): Promise<void> {
  await limits.addToLoginCount(wrongCodesKey(userId), fixedWindow(nowMs, LOGIN_WINDOW_SECONDS).windowStart, 1);
}

const wrongCodesKey = (userId: number) => `device code misses user:${userId}`;
