import type { VerificationResult } from '../../../engine/core/types.js';
import { addressKey, exactAddressKey } from '../../../engine/checks/address-key.js';
import type { CachedResult, CacheEntry } from '../model.js';

/** Begins the key of a verdict kept for its address in any case, so that it is never taken for one kept as asked. */
const FOLDED = 'folded:';

/**
 * The key a verdict about `email` is kept under (docs/architecture.md "The result cache and
 * refunds"): the address as asked (case kept), or, where the provider folds a local part's case,
 * its folded form, marked.
 */
export const cacheKey = (email: string, foldsCase: boolean): string => (foldsCase ? `${FOLDED}${addressKey(email)}` : exactAddressKey(email));

/** Both keys a verdict about `email` may be kept under: as asked, and in any case. */
export const cacheKeysOf = (email: string): [string, string] => [cacheKey(email, false), cacheKey(email, true)];

/**
 * Whether a verdict found under `email`'s key (as asked, or in any case) is one for that address:
 * its spelling, as kept, gives that key again. One kept under an older rule's key (every local part
 * folded then), or for an unparsable input that reads like another address's folded key, is not.
 */
export const fitsKey = (email: string, foldsCase: boolean, cached: CachedResult): boolean =>
  cacheKey(cached.result.email, foldsCase) === cacheKey(email, foldsCase);

/** A result_cache row as both dialects read it. */
export interface CacheRow {
  address_key: string;
  user_id: number;
  result: string;
  verified_at: string;
}

/** The newest row per address (rows in any order): what recall answers. */
export function newestPerAddress(rows: readonly CacheRow[]): Map<string, CachedResult> {
  const newest = new Map<string, CachedResult>();
  for (const row of rows) {
    const held = newest.get(row.address_key);
    if (held && held.verifiedAt >= row.verified_at) continue;
    newest.set(row.address_key, { result: JSON.parse(row.result) as VerificationResult, verifiedAt: row.verified_at, userId: row.user_id });
  }
  return newest;
}

/** One entry per address and account (the last given): a statement may not write one row twice. */
export function distinctEntries(entries: readonly CacheEntry[]): CacheEntry[] {
  return [...new Map(entries.map((entry) => [`${entry.userId}\u0000${entry.addressKey}`, entry])).values()];
}
