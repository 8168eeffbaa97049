import { VERDICTS, type Verdict } from '../engine/types.js';
import { DEFAULT_FRESHNESS, MAX_CACHED_RESULTS, type Freshness } from '../server/result-reuse.js';
import type { ServicePolicy } from '../server/service-parts.js';
import { UsageError } from './errors.js';

/** The flags of what an install decides about reuse and refunds (`serve` and `worker` alike). */
export interface PolicyFlags {
  cacheTtl?: string;
  cacheScope?: string;
  refundUnknown?: boolean;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Never reused whatever is asked: an unknown is no answer. */
const NEVER_REUSED: readonly Verdict[] = ['unknown'];

/** `30d`, `12h`, `90m`, `45s` or plain seconds, as milliseconds. */
function duration(text: string, flag: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new UsageError(`${flag}: "${text}" is no duration; use a number with s, m, h or d (e.g. 14d), or 0 to turn reuse off`);
  return Number(match[1]) * UNIT_MS[match[2] || 's']!;
}

/**
 * `--cache-ttl`: `0` turns reuse off; one duration applies to every verdict but `unknown`;
 * `valid=14d,invalid=30d` sets those verdicts and keeps the defaults of the others.
 */
export function parseFreshness(text: string, flag = '--cache-ttl'): Freshness | undefined {
  const given = text.trim();
  if (!given.includes('=')) {
    const all = duration(given, flag);
    if (all === 0) return undefined;
    return Object.fromEntries(VERDICTS.map((verdict) => [verdict, NEVER_REUSED.includes(verdict) ? 0 : all])) as Freshness;
  }
  const freshness = { ...DEFAULT_FRESHNESS };
  for (const part of given.split(',')) {
    const [verdict = '', value = ''] = part.split('=').map((each) => each.trim());
    if (!(VERDICTS as readonly string[]).includes(verdict)) throw new UsageError(`${flag}: "${verdict}" is no verdict; use ${VERDICTS.join(', ')}`);
    if (NEVER_REUSED.includes(verdict as Verdict)) throw new UsageError(`${flag}: an unknown is never reused`);
    freshness[verdict as Verdict] = duration(value, flag);
  }
  return freshness;
}

/** `--cache-ttl` > MAILVERIFY_CACHE_TTL > the defaults; `--cache-scope` likewise; `--refund-unknown` or MAILVERIFY_REFUND_UNKNOWN=1. */
export function parseServicePolicy(flags: PolicyFlags, env: NodeJS.ProcessEnv): ServicePolicy {
  const ttl = flags.cacheTtl ?? (env.MAILVERIFY_CACHE_TTL?.trim() || undefined);
  const freshness = ttl === undefined ? DEFAULT_FRESHNESS : parseFreshness(ttl);
  const scope = (flags.cacheScope ?? (env.MAILVERIFY_CACHE_SCOPE?.trim() || 'install')).toLowerCase();
  if (scope !== 'install' && scope !== 'account') throw new UsageError(`--cache-scope must be install or account, got "${scope}"`);
  const refundFromEnv = env.MAILVERIFY_REFUND_UNKNOWN?.trim().toLowerCase();
  return {
    reuse: freshness && { freshness, scope, maxEntries: MAX_CACHED_RESULTS },
    refundUnknown: flags.refundUnknown === true || refundFromEnv === '1' || refundFromEnv === 'true',
  };
}
