import { createHash, randomBytes } from 'node:crypto';

/** Every API token starts with this, so it can be told from a JWT at a glance (and by a secret scanner). */
export const API_TOKEN_PREFIX = 'mv_';
/** A test token's prefix (docs/api.md "Sandbox"), so that a reader of a CI config sees it spends nothing. */
export const TEST_TOKEN_PREFIX = `${API_TOKEN_PREFIX}test_`;

/**
 * A new API token: `mv_` (`mv_test_` for a test token) + 32 random bytes as hex. Shown once; only
 * its hash is ever stored. The prefix only tells people: whether a token is a test token is the store's flag.
 */
export function generateApiToken({ test = false }: { test?: boolean } = {}): string {
  return (test ? TEST_TOKEN_PREFIX : API_TOKEN_PREFIX) + randomBytes(32).toString('hex');
}

/**
 * An evidence receiver's URL ends in one of these (docs/evidence.md "Live from an ESP"): the
 * capability that lets an ESP post to the account, shown once, stored only as its SHA-256 like a token.
 */
export const RECEIVER_SECRET_PREFIX = 'mvr_';

export function generateReceiverSecret(): string {
  return RECEIVER_SECRET_PREFIX + randomBytes(32).toString('hex');
}

/**
 * SHA-256 of the token (or receiver secret), hex. A plain hash suffices (no salt, no scrypt) because the token is 256
 * random bits, not a human password: the hash is only a lookup key that a leaked database cannot
 * turn back into a working token.
 */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
