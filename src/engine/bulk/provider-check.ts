import { mailTargets } from '../checks/check-hosts.js';
import { findMailRoute } from '../checks/mail-route.js';
import type { EngineOptions } from '../core/types.js';
import type { DnsClient } from '../dns/resolver.js';
import type { Egress } from '../net/egress-pool.js';
import type { MatchedRule, ProviderRules } from '../rules/provider-rules.js';
import { SmtpError } from '../smtp/errors.js';
import { outcomeOfFailure, outcomeOfReply } from '../smtp/outcome.js';
import { CONTROLLED_KIND, postmasterAt } from '../smtp/postmaster-control.js';
import { replyKind } from '../smtp/reply-table.js';
import { SmtpSession, type SessionOptions, type SessionTarget } from '../smtp/session.js';

/** A confirmation of one egress at one provider starts at most this often, however many domains refuse it. */
const PROVIDER_CHECK_INTERVAL_MS = 60_000;

/** What a provider's check hosts said to an egress: every one refused it (`refused`, the first refusal), or not. */
export type ProviderFinding = { refused: string } | 'answered' | 'inconclusive';

/** One check host's answer; `unusable` when there was none to ask, `failed` when asking it taught nothing. */
type CheckAnswer = { refused: string } | 'answered' | 'unusable' | 'failed';

export interface ProviderCheckOptions {
  dns: DnsClient;
  rules: ProviderRules;
  options: EngineOptions;
  /** How a session at a host opens through an egress (VerifierContext.sessionFor). */
  sessionFor: (target: SessionTarget, egress: Egress) => SessionOptions;
  now?: () => number;
}

/**
 * Whether a provider refuses an egress as a whole, asked of hosts no customer picks
 * (docs/architecture.md "Egress"): through that egress, the first MX under the rule's suffix of
 * each of its `checkHosts` domains is asked for the domain's postmaster, which RFC 5321 makes
 * every domain take. Every such host refusing us (block words, or postmaster refused) is the
 * provider's judgement; a customer's domain refusing is only that domain's. The port-25 watch
 * (net/port25.ts) judges the same way, from its own check hosts.
 */
export class ProviderCheck {
  /** The last confirmation per egress and provider: joined while under way, reused for PROVIDER_CHECK_INTERVAL_MS. */
  private readonly last = new Map<string, { at: number; finding: Promise<ProviderFinding> }>();
  private readonly now: () => number;

  constructor(private readonly check: ProviderCheckOptions) {
    this.now = check.now ?? Date.now;
  }

  /** The provider's check hosts asked through `egress` now, or the finding of one asked within the interval. */
  confirm(egress: Egress, rule: MatchedRule): Promise<ProviderFinding> {
    const key = `${egress.key}\n${rule.suffix}`;
    const last = this.last.get(key);
    if (last && this.now() - last.at < PROVIDER_CHECK_INTERVAL_MS) return last.finding;
    const finding = this.askAll(egress, rule);
    this.last.set(key, { at: this.now(), finding });
    return finding;
  }

  private async askAll(egress: Egress, rule: MatchedRule): Promise<ProviderFinding> {
    const answers = (await Promise.all((rule.checkHosts ?? []).map((domain) => this.ask(egress, rule, domain).catch(() => 'failed' as const)))).filter(
      (answer) => answer !== 'unusable',
    );
    if (answers.includes('answered')) return 'answered';
    const refusals = answers.filter((answer): answer is { refused: string } => typeof answer === 'object');
    // Nothing to ask, or a check host that taught nothing: a provider is never benched on a guess.
    return refusals.length > 0 && refusals.length === answers.length ? refusals[0]! : 'inconclusive';
  }

  /** The first MX of `domain` under the rule's suffix, asked for `postmaster@domain` through `egress`. */
  private async ask(egress: Egress, rule: MatchedRule, domain: string): Promise<CheckAnswer> {
    const { dns, rules, options } = this.check;
    const route = await findMailRoute(dns, domain);
    const hostname = route.kind === 'mx' ? route.hosts.find((host) => rules.of(host)?.suffix === rule.suffix) : undefined;
    if (hostname === undefined) return 'unusable';
    const [found] = await mailTargets(dns, options, [hostname]);
    if (!found || !('address' in found)) return 'unusable';
    const target = { hostname, address: found.address };
    let session: SmtpSession;
    try {
      session = await SmtpSession.open(target, this.check.sessionFor(target, egress));
    } catch (error) {
      if (!(error instanceof SmtpError)) throw error;
      const outcome = outcomeOfFailure(error, target);
      return outcome.code === 'ip_blocked' ? { refused: outcome.reason } : 'failed';
    }
    try {
      const reply = await session.rcpt(postmasterAt(domain));
      const kind = replyKind(reply);
      if (outcomeOfReply(reply, kind).code === 'ip_blocked' || (kind === CONTROLLED_KIND && reply.code >= 500)) {
        return { refused: `${hostname} (${target.address}) refused ${postmasterAt(domain)}: ${reply.line}` };
      }
      // A 4xx says nothing either way; any other answer is the host taking us.
      return reply.code >= 400 && reply.code < 500 ? 'failed' : 'answered';
    } finally {
      session.quit().catch(() => undefined);
    }
  }
}
