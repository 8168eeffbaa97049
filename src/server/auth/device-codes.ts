import { createHash, randomBytes, randomInt } from 'node:crypto';

/**
 * The codes of the device authorization grant (docs/api.md "Logging in from a device"; RFC 8628).
 * The device code is the device's secret, 256 random bits; the user code is what a person reads off
 * a terminal and types on the dashboard: eight letters from an alphabet with no vowels (no words
 * spelt by chance) and none of the letters people confuse (RFC 8628 §6.1), shown as `XXXX-XXXX`.
 * Only the SHA-256 of each is stored.
 */

/** Consonants of the Latin alphabet, as RFC 8628 §6.1 suggests: 20^8 ≈ 2.6 × 10^10 codes. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/** A new user code, `XXXX-XXXX`. */
export function generateUserCode(): string {
  const letters = Array.from({ length: USER_CODE_LENGTH }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/**
 * A user code as typed, in its one stored form (eight capitals, no dash), or undefined when it
 * cannot be one: case, spaces and dashes are forgiven, as RFC 8628 §6.1 asks.
 */
export function normaliseUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== USER_CODE_LENGTH) return undefined;
  return [...letters].every((letter) => USER_CODE_ALPHABET.includes(letter)) ? letters : undefined;
}

/** The normalised code as people read it, `XXXX-XXXX`. */
export function displayUserCode(normalised: string): string {
  return `${normalised.slice(0, 4)}-${normalised.slice(4)}`;
}

/** The device's secret: 32 random bytes, base64url. */
export function generateDeviceCode(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256, hex: the key either code is stored and looked up under (both are random, so no salt is needed). */
export function hashCode(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/** How long a request may be approved, and how often its device may ask. */
export interface DeviceFlowTimes {
  lifetimeSeconds: number;
  intervalSeconds: number;
}

/** Ten minutes to approve, a poll every five seconds: gh's and the RFC's own example. */
export const DEFAULT_DEVICE_FLOW_TIMES: DeviceFlowTimes = { lifetimeSeconds: 600, intervalSeconds: 5 };

/** For tests only: shorter times, so that a test can see a code expire without waiting ten minutes. */
const LIFETIME_ENV = 'MAILVERIFY_TEST_DEVICE_CODE_SECONDS';
const INTERVAL_ENV = 'MAILVERIFY_TEST_DEVICE_INTERVAL_SECONDS';

function secondsFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`${name} must be whole seconds, at least 1, not "${raw}"`);
  return seconds;
}

/** The times from the test-only environment variables where set, else the defaults; throws on a malformed value. */
export function deviceFlowTimes(env: NodeJS.ProcessEnv): DeviceFlowTimes {
  return {
    lifetimeSeconds: secondsFrom(env, LIFETIME_ENV, DEFAULT_DEVICE_FLOW_TIMES.lifetimeSeconds),
    intervalSeconds: secondsFrom(env, INTERVAL_ENV, DEFAULT_DEVICE_FLOW_TIMES.intervalSeconds),
  };
}
