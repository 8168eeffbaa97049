import { unknownOutcome, type SmtpOutcome } from '../smtp/outcome.js';
import { Counts } from '../core/counts.js';
import { BenchBoard, wholeProvider } from '../net/egress-benches.js';
import type { Egress } from '../net/egress-pool.js';
import type { MatchedRule, ProviderRules } from '../rules/provider-rules.js';
import type { ProviderFinding } from './provider-check.js';
import { EgressesBenched } from '../smtp/probe-contract.js';
import type { SessionTarget } from '../smtp/session.js';
import type { EgressBenches } from '../core/types.js';

/** A session's egress at a host, and its key there (`hostKey`), counted until `leave`. */
export interface Entered {
  egress: Egress;
  hostKey: string;
  leave: () => void;
}

/**
 * Which egress of the pool a session at a mail host goes out through (docs/architecture.md
 * "Egress"). Each egress has its own per-host session limit (`hostKey`); a new session takes the
 * egress with the fewest sessions held or awaited at that host among those not benched for the
 * domain it asks about. A host that refuses an egress for reputation benches it for that domain
 * only, for the cool-down while another egress is left, and the refused address is asked again
 * through that one: a customer's domain decides nothing for another's. A whole provider is benched
 * only when its own check hosts refuse the egress too (ProviderCheck). With a single egress nothing
 * is benched: there is nowhere else to ask, and its refusals are answered as the server gave them,
 * as they always were.
 */
export class EgressRoutes {
  private readonly board: BenchBoard;
  /** Sessions held or waited for, per egress and host address: where a new session goes. */
  private readonly load = new Counts();
  /** The one egress of a pool of one: chosen without an await. */
  readonly only: Egress | undefined;

  constructor(
    readonly pool: readonly Egress[],
    private readonly rules: ProviderRules,
    private readonly cooldownMs: number,
    shared: EgressBenches | undefined,
    /** Whether an egress's port 25 is confirmed blocked (net/port25-pool.ts): its sessions would fail at once. */
    private readonly portBlocked: (egress: Egress) => boolean = () => false,
    /** What a provider's own check hosts say to an egress (bulk/provider-check.ts). */
    private readonly confirmProvider: (egress: Egress, rule: MatchedRule) => Promise<ProviderFinding> = async () => 'inconclusive',
  ) {
    this.board = new BenchBoard(shared);
    this.only = pool.length === 1 ? pool[0] : undefined;
  }

  /**
   * The egresses benched for `domain` at `target`: for the domain itself, or for the whole provider
   * of the host's rule; and, for when every egress is benched, why, in words that name no address.
   */
  private async benchedFor(target: SessionTarget, domain: string): Promise<{ benched: ReadonlySet<string>; allBenched: string }> {
    const suffix = this.rules.of(target.hostname)?.suffix;
    const [atDomain, atProvider] = await Promise.all([
      this.board.benched(domain),
      suffix === undefined ? Promise.resolve(new Set<string>()) : this.board.benched(wholeProvider(suffix)),
    ]);
    const count = this.pool.length;
    const allBenched =
      suffix !== undefined && atProvider.size === count
        ? `the check hosts of ${suffix} refused every egress of ours (${count}) for reputation, not this address; each is benched at every ${suffix} host for a cool-down`
        : `${target.hostname} refused every egress of ours (${count}) for reputation, not this address; each is benched for ${domain} for a cool-down`;
    return { benched: atProvider.size === 0 ? atDomain : new Set([...atDomain, ...atProvider]), allBenched };
  }

  /** The key of an egress's session limit at a host address: the address alone for a pool of one, as before pools. */
  hostKey(egress: Egress, address: string): string {
    return this.only ? address : `${egress.key}\n${address}`;
  }

  /**
   * The egress for a new session at `target` for `domain`'s addresses in a pool of several: the one
   * with the fewest sessions held or awaited there among those not benched for the domain, counted
   * there at once (no await between the choice and the count, so sessions choosing together
   * spread). Throws EgressesBenched when every egress is benched there.
   */
  async choose(target: SessionTarget, domain: string): Promise<Entered> {
    if (this.proxiedByRule(target)) return this.enter(this.pool[0]!, target.address);
    const { benched, allBenched } = await this.benchedFor(target, domain);
    const open = this.pool.filter((egress) => !benched.has(egress.key));
    // An egress whose port 25 is blocked is passed over while another is not; with all blocked, any says so at once.
    const usable = open.some((egress) => !this.portBlocked(egress)) ? open.filter((egress) => !this.portBlocked(egress)) : open;
    let best: Egress | undefined;
    for (const egress of usable) {
      if (!best || this.load.of(this.hostKey(egress, target.address)) < this.load.of(this.hostKey(best, target.address))) best = egress;
    }
    if (!best) throw new EgressesBenched(unknownOutcome(`not asked: ${allBenched}`, 'egress_benched'));
    return this.enter(best, target.address);
  }
  /**
   * Whether the host's provider rule names a proxy: every egress would reach it through that proxy,
   * and the host sees the proxy alone, so there the pool acts as one egress, the first (the proxy
   * reached from its source address): one session budget, not one per egress, and nothing to bench,
   * as with a pool of one.
   */
  private proxiedByRule(target: SessionTarget): boolean {
    return this.rules.of(target.hostname)?.proxy !== undefined;
  }

  /** Counts a session held or awaited at `address` through `egress` until `leave` is called (once). */
  enter(egress: Egress, address: string): Entered {
    const hostKey = this.hostKey(egress, address);
    this.load.add(hostKey, 1);
    let left = false;
    return {
      egress,
      hostKey,
      leave: () => {
        if (!left) this.load.add(hostKey, -1);
        left = true;
      },
    };
  }

  /**
   * `egress` was refused at `target` for reputation while asking about `domain` (`refusal`, the
   * address's answer there): it is benched for that domain, and for the whole provider only once the
   * provider's check hosts refuse it too (asked meanwhile). With another egress left for the domain
   * the address is to be asked again ('elsewhere'); when it was the last, the address is `unknown`
   * (`egress_benched`); a pool of one keeps the refusal as the answer.
   */
  async refused(egress: Egress, target: SessionTarget, domain: string, refusal: SmtpOutcome): Promise<SmtpOutcome | 'elsewhere'> {
    if (this.only || this.proxiedByRule(target)) return refusal;
    // Kept for operators (metrics, doctor): the refusal without the address it was about.
    this.board.bench({ egress: egress.key, provider: domain, cooldownMs: this.cooldownMs, reason: refusal.reason.replace(ADDRESS, '<address>') });
    const rule = this.rules.of(target.hostname);
    if (rule?.checkHosts) void this.benchProviderIfConfirmed(egress, rule);
    const { benched, allBenched } = await this.benchedFor(target, domain);
    if (this.pool.some((each) => each !== egress && !benched.has(each.key))) return 'elsewhere';
    return unknownOutcome(`${allBenched}; the last: ${refusal.reason}`, 'egress_benched');
  }

  /** Benches `egress` at the whole provider of `rule` when every one of its check hosts refuses it. */
  private async benchProviderIfConfirmed(egress: Egress, rule: MatchedRule): Promise<void> {
    const finding = await this.confirmProvider(egress, rule).catch(() => 'inconclusive' as const);
    if (typeof finding !== 'object') return;
    this.board.bench({ egress: egress.key, provider: wholeProvider(rule.suffix), cooldownMs: this.cooldownMs, reason: `check host ${finding.refused}` });
  }
}

/** Anything shaped like a mail address (`local@domain`, bracketed or not). */
const ADDRESS = /[^\s<>@]+@[^\s<>]+/g;
