import { PromiseCache } from '../core/cache.js';
import type { CatchAllFinding } from '../checks/catch-all.js';
import { DnsClient } from '../dns/resolver.js';
import { mailTargets } from '../checks/check-hosts.js';
import { checkResolver, untruthfulResolverReason, type ResolverSanity } from '../dns/sanity.js';
import { dialerFor, type Dialer } from '../net/egress.js';
import { egressPool, type Egress } from '../net/egress-pool.js';
import { egressKey } from '../net/egress-key.js';
import { EgressRoutes } from './egress-routes.js';
import { ProviderCheck } from './provider-check.js';
import { NetworkStatusBoard, type NetworkStatus } from '../net/network-status.js';
import { Port25Watch } from '../net/port25.js';
import { Port25Pool } from '../net/port25-pool.js';
import { Counts } from '../core/counts.js';
import { KeyedSemaphore, Semaphore, type BulkClaim, type Priority } from '../core/semaphore.js';
import { loadProviderRules, type ProviderRules } from '../rules/provider-rules.js';
import type { SessionSlot } from '../smtp/probe-contract.js';
import type { SmtpProber } from '../smtp/prober.js';
import { HostHabits } from '../smtp/host-habits.js';
import { SessionSharing } from '../smtp/session-sharing.js';
import type { SessionOptions, SessionTarget } from '../smtp/session.js';
import type { EngineHooks, EngineOptions, SharedHostSlots, SmtpObserver } from '../core/types.js';
import { gatherDomainFacts, type DomainFacts } from './domain-facts.js';
import { HostPauses } from './host-pauses.js';

const CACHE_ENTRIES = 50_000;
const FACT_TTL_MS = 10 * 60_000;
/** A domain we could not find out about is asked again soon, not in ten minutes. */
const UNSURE_TTL_MS = 30_000;
const WEB_CHECKS_AT_ONCE = 64;

/** Who asks for a session slot, and for how many addresses. */
export interface SlotRequest {
  priority: Priority;
  share?: string;
  pending: number;
  /** The domain whose addresses the session asks first: an egress benched for it is not chosen. */
  domain: string;
}

/**
 * What one verifier keeps between calls: the options, the DNS client and its cache, the per-domain
 * facts and catch-all findings, the provider rules, and the session limits shared by every call in progress.
 */
export class VerifierContext {
  readonly dns: DnsClient;
  readonly rules: ProviderRules;
  private readonly sessionOptions: SessionOptions;
  /** The dialers of the proxies provider rules name, made when first needed. */
  private readonly ruleDialers = new Map<string, Dialer>();
  readonly catchAll = new PromiseCache<string, CatchAllFinding>(CACHE_ENTRIES, (finding) => (finding.decided ? FACT_TTL_MS : UNSURE_TTL_MS));
  private readonly facts = new PromiseCache<string, DomainFacts>(CACHE_ENTRIES, (facts) =>
    facts.status.kind === 'dns-failure' || facts.status.kind === 'untrusted-dns' ? UNSURE_TTL_MS : FACT_TTL_MS,
  );
  /** One entry: the resolver's sanity, asked when a denial first needs it, then again now and then. */
  private readonly sanity = new PromiseCache<'resolver', ResolverSanity>(1, (sanity) => (sanity.truthful ? FACT_TTL_MS : UNSURE_TTL_MS));
  private resolverLied = false;
  private readonly webSlots = new Semaphore(WEB_CHECKS_AT_ONCE);
  private readonly sessions: Semaphore;
  private readonly sessionsPerHost = new KeyedSemaphore();
  private readonly pauses = new HostPauses();
  /** What sessions teach about each host: its reply time, the refusals it takes in one session. */
  readonly habits = new HostHabits();
  /** Addresses whose answer each MX host (its address) still owes this verifier's runs, retries included. */
  readonly backlog = new Counts();
  /** Domains with addresses queued at each host: a session done with one goes on with another. */
  readonly sharing = new SessionSharing<SmtpProber>();

  /** What this verifier has found out about its network (a blocked port, a lying resolver). */
  readonly network = new NetworkStatusBoard();
  /** Each egress's port 25, watched on its own (net/port25-pool.ts). */
  private readonly port25: Port25Pool;
  /** The ways out (net/egress-pool.ts), and which one each session takes. */
  readonly egresses: readonly Egress[];
  private readonly routes: EgressRoutes;
  /** How a session opens through each egress but the first (`sessionOptions`), made when first needed. */
  private readonly egressSessions = new Map<string, SessionOptions>();

  /** Told of every SMTP session and RCPT answer, when someone watches. */
  readonly observer?: SmtpObserver;
  private readonly sharedHostSlots?: SharedHostSlots;

  constructor(
    readonly options: EngineOptions,
    hooks: EngineHooks = {},
  ) {
    this.observer = hooks.observer;
    this.sharedHostSlots = hooks.sharedHostSlots;
    this.dns = new DnsClient({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs });
    this.egresses = egressPool(options);
    this.port25 = new Port25Pool(this.egresses, (egress, board) => this.port25Watch(egress, board), this.network);
    this.sessionOptions = {
      port: options.smtpPort,
      heloName: options.heloName,
      mailFrom: options.mailFrom,
      connectTimeoutMs: options.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs,
      startTls: true,
      dial: this.port25.of(this.egresses[0]!).dial,
      egress: this.egresses[0]!.key,
      egressLabel: this.egresses[0]!.label,
    };
    this.sessions = new Semaphore(options.concurrency);
    this.rules = loadProviderRules(options.providerRulesFile);
    const providerCheck = new ProviderCheck({ dns: this.dns, rules: this.rules, options, sessionFor: (target, egress) => this.sessionFor(target, egress) });
    this.routes = new EgressRoutes(
      this.egresses,
      this.rules,
      options.egressCooldownMs,
      hooks.egressBenches,
      (egress) => this.port25.blocked(egress),
      (egress, rule) => providerCheck.confirm(egress, rule),
    );
  }

  /**
   * The port-25 watch of one egress (net/port25.ts): its own dialer, watched, and confirmed against
   * the hosts no customer picks (the operator's check hosts, else the providers' mail hosts).
   */
  private port25Watch(egress: Egress, board: NetworkStatusBoard): Port25Watch {
    const { smtpPort, connectTimeoutMs } = this.options;
    return new Port25Watch({
      port: smtpPort,
      connectTimeoutMs,
      dial: dialerFor(egress),
      checkTargets: () => mailTargets(this.dns, this.options, undefined),
      board,
    });
  }

  /**
   * How to open a session at a host through an egress (the first unless said): through the proxy
   * its provider rule names, reached from the egress's source address, else as the egress says.
   */
  readonly sessionFor = (target: SessionTarget, egress: Egress = this.egresses[0]!): SessionOptions => {
    const proxy = this.rules.of(target.hostname)?.proxy;
    if (proxy === undefined) return egress === this.egresses[0] ? this.sessionOptions : this.egressSession(egress);
    const key = `${proxy}\n${egress.sourceAddress ?? ''}`;
    let dial = this.ruleDialers.get(key);
    if (!dial) {
      dial = this.port25.of(egress).watch(dialerFor({ proxy, sourceAddress: egress.sourceAddress }));
      this.ruleDialers.set(key, dial);
    }
    const egressLabel = `proxy of provider rule ${this.rules.of(target.hostname)!.suffix}`;
    return { ...this.sessionOptions, dial, egress: egressKey({ proxy, sourceAddress: egress.sourceAddress }), egressLabel };
  };

  private egressSession(egress: Egress): SessionOptions {
    let session = this.egressSessions.get(egress.key);
    if (!session) {
      session = { ...this.sessionOptions, dial: this.port25.of(egress).dial, egress: egress.key, egressLabel: egress.label };
      this.egressSessions.set(egress.key, session);
    }
    return session;
  }

  domainFacts(asciiDomain: string): Promise<DomainFacts> {
    return this.facts.get(asciiDomain, () =>
      gatherDomainFacts({ dns: this.dns, resolverSanity: this.resolverSanity, options: this.options, webSlots: this.webSlots }, asciiDomain),
    );
  }

  /**
   * Whether the resolver tells the truth, asked again when the cached finding expires. When a lying
   * resolver starts telling the truth (the portal let us through), the denials it gave meanwhile
   * are forgotten, so that none of them turns into an `invalid` later.
   */
  readonly resolverSanity = (): Promise<ResolverSanity> =>
    this.sanity.get('resolver', async () => {
      const sanity = await checkResolver(this.dns);
      if (sanity.truthful && this.resolverLied) this.dns.forget();
      this.resolverLied = !sanity.truthful;
      this.network.set('resolver', sanity.truthful ? { state: 'truthful' } : { state: 'untruthful', reason: untruthfulResolverReason(sanity) });
      return sanity;
    });

  /**
   * What `serve` and `worker` ask at start, so that an operator hears of a broken network before the
   * first paid address does: whether the resolver tells the truth and, when it does (or the operator
   * named check hosts), the port-25 confirmation: the check hosts dialled on the SMTP port through
   * the egress, as a suspicion's confirmation does (net/port25.ts). A host that cannot be tried (no
   * address, a private one) leaves the port's state as it was.
   */
  async checkNetwork(): Promise<NetworkStatus> {
    if ((await this.resolverSanity()).truthful || this.options.port25CheckHosts.length > 0) await this.port25.confirmAll();
    return this.network.status();
  }

  /**
   * A session slot at a host address. The host's own slots are taken first (this verifier's, then
   * the one shared with other processes, if any): a session waiting for a busy host must not sit
   * on one of the global slots that sessions to idle hosts could use; so is the pause its provider
   * rule asks for. The host's limit is the engine's, or its rule's if lower, here and across
   * processes. The local limit comes before the shared one so that only sessions this process
   * could open now ask the store. A bulk slot is `wanted` back while an interactive probe here, or
   * the work of a share holding fewer slots, waits for either local limit it counts against (see
   * Semaphore). The global slots are shared between hosts too: among one share's waiting sessions,
   * the host with the most work left per slot (its reply time × the addresses it owes) goes first,
   * a host not heard from yet before any: the slowest and busiest hosts bound a run, and must not
   * queue behind other hosts' short sessions.
   */
  readonly takeSlot = async (target: SessionTarget, { priority, share, pending, domain }: SlotRequest): Promise<SessionSlot> => {
    const { hostname, address } = target;
    const rule = this.rules.of(hostname);
    const pauseMs = rule?.pauseMs ?? 0;
    const limit = Math.min(this.options.perHostConcurrency, rule?.sessionLimit ?? Infinity);
    // Each egress has its own limit at the host (EgressRoutes); a pool of one chooses without an await.
    const { egress, hostKey, leave } = this.routes.only ? this.routes.enter(this.routes.only, address) : await this.routes.choose(target, domain);
    const localSlot = await this.sessionsPerHost.acquire(hostKey, limit, priority, share);
    const releaseHost = () => {
      localSlot();
      leave();
    };
    // Without a shared limit, no extra await: a slot is taken as before the hook existed.
    const releaseHostSlots = this.sharedHostSlots
      ? await this.takeSharedSlot(this.sharedHostSlots, address, limit, priority, releaseHost, egress.key)
      : releaseHost;
    await this.pauses.before(address, pauseMs);
    const claimOf = (pending: number): BulkClaim => ({ group: address, weight: this.expectedSessionMs(address, pending) });
    const releaseGlobal = await this.sessions.acquire(priority, share, claimOf(pending));
    return {
      session: this.sessionFor(target, egress),
      refused: (refusal, refusedFor) => this.routes.refused(egress, target, refusedFor, refusal),
      release: () => {
        releaseGlobal();
        this.pauses.after(address, pauseMs);
        releaseHostSlots();
      },
      wanted: (left) => priority === 'bulk' && (this.sessionsPerHost.wanted(hostKey, share) || this.sessions.wanted(share, claimOf(left))),
      spare: () => this.sessionsPerHost.spare(hostKey),
      onSpare: (listener) => this.sessionsPerHost.onSpare(hostKey, listener),
    };
  };

  /**
   * How long the work at a host should take: its reply time × the addresses it still owes us (at
   * least the session's own `pending`: a host asked as a fallback has no backlog of its own);
   * unknown before it has answered.
   */
  private expectedSessionMs(address: string, pending: number): number {
    const replyMs = this.habits.replyMs(address);
    return replyMs === undefined ? Infinity : replyMs * Math.max(pending, this.backlog.of(address));
  }

  /**
   * The shared slot at the host; resolves with what gives back both it and the local per-host
   * slot: the local one only once the shared one is given back, so that the next session here
   * finds the shared slot free rather than asking while it is still held.
   */
  private async takeSharedSlot(
    shared: SharedHostSlots,
    address: string,
    limit: number,
    priority: Priority,
    releaseHost: () => void,
    egress: string,
  ): Promise<() => void> {
    let releaseShared: () => Promise<void>;
    try {
      releaseShared = await shared(address, limit, priority, egress);
    } catch (error) {
      releaseHost();
      throw error;
    }
    return () => void releaseShared().finally(releaseHost);
  }
}
