import { VERDICTS, type Verdict } from '../../engine/core/types.js';
import {
  DEFAULT_EVIDENCE_WINDOW_MS,
  DEFAULT_FRESHNESS,
  DEFAULT_WEBHOOK_POLICY,
  MAX_CACHED_RESULTS,
  type Freshness,
  type ServicePolicy,
  type WebhookPolicy,
} from '../../server/settings.js';
import { durationMs, integer } from '../options/engine-flags.js';
import { UsageError } from '../output/errors.js';
import type { PolicyFlags } from '../options/service-flags.js';

/** Never reused whatever is asked: an unknown is no answer. */
const NEVER_REUSED: readonly Verdict[] = ['unknown'];

/** What 0 means to the cache's durations, said when one is no duration. */
const ZERO_TURNS_REUSE_OFF = 'or 0 to turn reuse off';

const isOn = (value: string | undefined) => ['1', 'true'].includes(value?.trim().toLowerCase() ?? '');
/** A flag's value, else its environment variable's (blank counts as unset). */
const given = (flag: string | undefined, env: string | undefined) => flag ?? (env?.trim() || undefined);

/**
 * `--allow-private-webhooks` (or MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS=1), `--webhook-endpoints`,
 * `--webhook-tests-per-minute`, `--webhook-retention` (each with its MAILVERIFY_ variable) over
 * DEFAULT_WEBHOOK_POLICY. The engine's --allow-private-networks does not open webhooks.
 */
function parseWebhookPolicy(flags: PolicyFlags, env: NodeJS.ProcessEnv): WebhookPolicy {
  const endpoints = given(flags.webhookEndpoints, env.MAILVERIFY_WEBHOOK_ENDPOINTS);
  const tests = given(flags.webhookTestsPerMinute, env.MAILVERIFY_WEBHOOK_TESTS_PER_MINUTE);
  const retention = given(flags.webhookRetention, env.MAILVERIFY_WEBHOOK_RETENTION);
  return {
    allowPrivateWebhooks: flags.allowPrivateWebhooks === true || isOn(env.MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS),
    maxEndpoints: endpoints === undefined ? DEFAULT_WEBHOOK_POLICY.maxEndpoints : integer(1, 10_000)(endpoints, '--webhook-endpoints'),
    testsPerMinute: tests === undefined ? DEFAULT_WEBHOOK_POLICY.testsPerMinute : integer(0, 100_000)(tests, '--webhook-tests-per-minute'),
    retentionMs: retention === undefined ? DEFAULT_WEBHOOK_POLICY.retentionMs : Math.max(1_000, durationMs(retention, '--webhook-retention')),
  };
}

/** `--retention` (MAILVERIFY_RETENTION): how long finished jobs are kept; none (kept for ever) when not given or 0. */
function parseRetention(flags: PolicyFlags, env: NodeJS.ProcessEnv): number | undefined {
  const retention = given(flags.retention, env.MAILVERIFY_RETENTION);
  if (retention === undefined) return undefined;
  const ms = durationMs(retention, '--retention', 'or 0 to keep finished jobs');
  return ms === 0 ? undefined : ms;
}

/**
 * `--evidence-window` (MAILVERIFY_EVIDENCE_WINDOW): how old an account's evidence may be to decide a
 * verdict; 0 uses none (docs/evidence.md "How evidence decides a verdict").
 */
export function parseEvidenceWindow(flag: string | undefined, env: NodeJS.ProcessEnv): number {
  const window = given(flag, env.MAILVERIFY_EVIDENCE_WINDOW);
  return window === undefined ? DEFAULT_EVIDENCE_WINDOW_MS : durationMs(window, '--evidence-window', 'or 0 to use no evidence');
}

/**
 * `--cache-ttl`: `0` turns reuse off; one duration applies to every verdict but `unknown`;
 * `valid=14d,invalid=30d` sets those verdicts and keeps the defaults of the others.
 */
function parseFreshness(text: string, flag = '--cache-ttl'): Freshness | undefined {
  const given = text.trim();
  if (!given.includes('=')) {
    const all = durationMs(given, flag, ZERO_TURNS_REUSE_OFF);
    if (all === 0) return undefined;
    return Object.fromEntries(VERDICTS.map((verdict) => [verdict, NEVER_REUSED.includes(verdict) ? 0 : all])) as Freshness;
  }
  const freshness = { ...DEFAULT_FRESHNESS };
  for (const part of given.split(',')) {
    const [verdict = '', value = ''] = part.split('=').map((each) => each.trim());
    if (!(VERDICTS as readonly string[]).includes(verdict)) throw new UsageError(`${flag}: "${verdict}" is no verdict; use ${VERDICTS.join(', ')}`);
    if (NEVER_REUSED.includes(verdict as Verdict)) throw new UsageError(`${flag}: an unknown is never reused`);
    freshness[verdict as Verdict] = durationMs(value, flag, ZERO_TURNS_REUSE_OFF);
  }
  return freshness;
}

/** `--cache-ttl` > MAILVERIFY_CACHE_TTL > the defaults; `--cache-scope` likewise; `--refund-unknown` or MAILVERIFY_REFUND_UNKNOWN=1; the webhook flags; `--retention`; `--evidence-window`. */
export function parseServicePolicy(flags: PolicyFlags, env: NodeJS.ProcessEnv): ServicePolicy {
  const ttl = flags.cacheTtl ?? (env.MAILVERIFY_CACHE_TTL?.trim() || undefined);
  const freshness = ttl === undefined ? DEFAULT_FRESHNESS : parseFreshness(ttl);
  const scope = (flags.cacheScope ?? (env.MAILVERIFY_CACHE_SCOPE?.trim() || 'install')).toLowerCase();
  if (scope !== 'install' && scope !== 'account') throw new UsageError(`--cache-scope must be install or account, got "${scope}"`);
  return {
    reuse: freshness && { freshness, scope, maxEntries: MAX_CACHED_RESULTS },
    refundUnknown: flags.refundUnknown === true || isOn(env.MAILVERIFY_REFUND_UNKNOWN),
    webhooks: parseWebhookPolicy(flags, env),
    retentionMs: parseRetention(flags, env),
    evidenceWindowMs: parseEvidenceWindow(flags.evidenceWindow, env),
  };
}
