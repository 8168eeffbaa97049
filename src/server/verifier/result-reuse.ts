import { VERIFIER_CONDITIONS } from '../../engine/core/reason-codes.js';
import type { Verdict, VerificationResult, Verifier, VerifyManyOptions, VerifyOptions } from '../../engine/core/types.js';
import type { Explanation } from '../../engine/core/transcript.js';
import { cacheKey, cacheKeysOf, fitsKey } from '../store/rows/result-cache.js';
import type { CachedResult, CacheEntry, ResultCacheStore } from '../store/store.js';

const DAY_MS = 24 * 60 * 60 * 1_000;

/** How long a verdict may be reused, per verdict, in milliseconds; 0: never. */
export type Freshness = Record<Verdict, number>;

/**
 * The defaults (docs/architecture.md "The result cache"): mailboxes come and go slowly, a mailbox
 * that does not exist rarely starts to, a catch-all's answer says the least; `unknown` is no
 * answer at all and is always asked again.
 */
export const DEFAULT_FRESHNESS: Freshness = { valid: 14 * DAY_MS, invalid: 30 * DAY_MS, risky: 14 * DAY_MS, catch_all: 7 * DAY_MS, unknown: 0 };
/** Most verdicts kept: the least fresh go beyond it. */
export const MAX_CACHED_RESULTS = 1_000_000;
/** How often one process prunes the cache, at most: pruning counts the whole table. */
const PRUNE_EVERY_MS = 60_000;

export interface ReusePolicy {
  freshness: Freshness;
  /** `install`: a verdict any account's job found is reused for all; `account`: each account reuses only its own. */
  scope: 'install' | 'account';
  maxEntries: number;
}

/** Who asks, and whether afresh: what the service adds to an engine call (a plain verifier ignores it). */
export interface Asker {
  /** The account the verification is for. */
  owner?: number;
  /** Reuse nothing: ask the mail host again. */
  fresh?: boolean;
  /**
   * Where a verdict found now and worth keeping goes, instead of the cache, just before its result
   * is answered: the runner keeps it with the result it writes under the chunk's lease, so that a
   * verdict about an item deleted meanwhile is kept nowhere (WorkQueue.saveResults).
   */
  keep?: (entry: CacheEntry) => void;
}

/** The verifier the service's runner and routes call: the engine's, taking an Asker beside its options. */
export interface ServiceVerifier {
  verify(email: string, options?: VerifyOptions & Asker): Promise<VerificationResult>;
  verifyMany(emails: Iterable<string>, onResult: (result: VerificationResult) => void | Promise<void>, options?: VerifyManyOptions & Asker): Promise<void>;
}

/** The UTC midnight that began the day of an ISO time. */
const dayOf = (iso: string): string => `${iso.slice(0, 10)}T00:00:00.000Z`;

/**
 * A kept verdict handed out for another request: the address as asked, and when the verdict was
 * found: exactly when the asker's own job found it, to the day when another account's did (the
 * moment would tell one customer when another verified the address; docs/operating.md "Reused verdicts and refunds").
 */
const reused = (email: string, cached: CachedResult, owner: number | undefined): VerificationResult => ({
  ...cached.result,
  email,
  verifiedAt: cached.userId === owner ? cached.verifiedAt : dayOf(cached.verifiedAt),
});

/**
 * What `explain` says of a reused verdict: that it was reused, and when it was found (as `verifiedAt`
 * says it); never the dialogue behind it, which may have been another account's.
 */
const reusedExplanation = (verifiedAt: string): Explanation => ({
  mxHosts: [],
  connections: [],
  transcript: [],
  notes: [`reused: a verdict found ${verifiedAt} (the result cache); no mail host was asked now; ask with "fresh": true to see the dialogue`],
});

/** The entry to keep for a fresh result, if its verdict is reused at all. */
function entryFor(result: VerificationResult, owner: number | undefined, policy: ReusePolicy): CacheEntry | undefined {
  const freshFor = policy.freshness[result.result];
  if (owner === undefined || freshFor <= 0 || VERIFIER_CONDITIONS.has(result.reasonCode)) return undefined;
  const now = Date.now();
  // Kept as asked, unless the provider reads the local part in any case (docs/providers.md).
  return {
    addressKey: cacheKey(result.email, result.foldsCase === true),
    userId: owner,
    result,
    verifiedAt: new Date(now).toISOString(),
    freshUntil: now + freshFor,
  };
}

/** The asker's own live verdicts under each key, and (install scope) the newest of anyone's. */
async function recallOwnAndAnyone(
  cache: ResultCacheStore,
  scope: ReusePolicy['scope'],
  keys: readonly string[],
  owner: number,
): Promise<ReadonlyMap<string, CachedResult>[]> {
  const now = Date.now();
  if (scope === 'account') return [await cache.recall(keys, now, owner)];
  return Promise.all([cache.recall(keys, now, owner), cache.recall(keys, now)]);
}

/**
 * The newest verdict found for `email` under its key as asked or its key in any case, of those
 * about it: one kept in any case was kept so because its provider folds case (entryFor).
 */
function newestFor(found: ReadonlyMap<string, CachedResult>, email: string): CachedResult | undefined {
  let newest: CachedResult | undefined;
  for (const foldsCase of [false, true]) {
    const cached = found.get(cacheKey(email, foldsCase));
    if (cached && fitsKey(email, foldsCase, cached) && !(newest && newest.verifiedAt >= cached.verifiedAt)) newest = cached;
  }
  return newest;
}

/**
 * The verifier with a result cache in the store before it: a verdict found lately (within its
 * freshness) for the same address is answered without asking the mail host, across jobs, accounts
 * (unless scoped to each) and nodes; what the engine finds is kept for the next time. Charging is
 * the callers' and does not change. The cache is a help, never a condition: when the store cannot
 * recall or keep verdicts, the engine is asked and the trouble reported to `onError`.
 */
export function reusingResults<V extends Verifier>(
  verifier: V,
  cache: ResultCacheStore,
  policy: ReusePolicy,
  onError: (error: unknown) => void,
): V & ServiceVerifier {
  let prunedAt = 0;

  /**
   * The verdict to reuse for an address, if any: the asker's own live one first, else (install
   * scope) the newest of anyone's. Own first: what an account is answered after its own verification
   * must not change when another account verifies the address (docs/operating.md "What an account
   * can learn from the shared cache").
   */
  async function recall(emails: readonly string[], { owner, fresh }: Asker): Promise<(email: string) => CachedResult | undefined> {
    if (fresh || owner === undefined || emails.length === 0) return () => undefined;
    try {
      const found = await recallOwnAndAnyone(cache, policy.scope, [...new Set(emails.flatMap(cacheKeysOf))], owner);
      return (email) => found.reduce<CachedResult | undefined>((chosen, each) => chosen ?? newestFor(each, email), undefined);
    } catch (error) {
      onError(error);
      return () => undefined;
    }
  }

  /** Keeps these verdicts (none: those the caller keeps itself), and prunes when it is time. */
  async function keep(entries: readonly CacheEntry[]): Promise<void> {
    try {
      if (entries.length > 0) await cache.remember(entries);
      if (Date.now() - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = Date.now();
        await cache.prune(prunedAt, policy.maxEntries);
      }
    } catch (error) {
      onError(error);
    }
  }

  return {
    ...verifier,
    async verify(email: string, options: VerifyOptions & Asker = {}) {
      const cached = (await recall([email], options))(email);
      if (cached) {
        const result = reused(email, cached, options.owner);
        return options.explain ? { ...result, details: reusedExplanation(result.verifiedAt!) } : result;
      }
      const result = await verifier.verify(email, options);
      const entry = entryFor(result, options.owner, policy);
      if (entry && options.keep) options.keep(entry);
      await keep(entry && !options.keep ? [entry] : []);
      return result;
    },
    async verifyMany(emails: Iterable<string>, onResult: (result: VerificationResult) => void | Promise<void>, options: VerifyManyOptions & Asker = {}) {
      const list = [...emails];
      const cached = await recall(list, options);
      const rest: string[] = [];
      for (const email of list) {
        const hit = cached(email);
        if (hit) await onResult(reused(email, hit, options.owner));
        else rest.push(email);
      }
      if (rest.length === 0) return;
      const found: CacheEntry[] = [];
      try {
        await verifier.verifyMany(
          rest,
          (result) => {
            const entry = entryFor(result, options.owner, policy);
            if (entry && options.keep) options.keep(entry);
            else if (entry) found.push(entry);
            return onResult(result);
          },
          options,
        );
      } finally {
        await keep(found);
      }
    },
  };
}
