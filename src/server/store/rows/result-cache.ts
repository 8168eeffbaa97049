import type { VerificationResult } from '../../../engine/core/types.js';
import type { CachedResult, CacheEntry } from '../model.js';

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
