import { PromiseCache } from '../cache.js';
import type { CatchAllFinding } from '../checks/catch-all.js';
import { DnsClient } from '../dns/resolver.js';
import { mailTargets } from '../diagnose.js';
import { checkResolver, untruthfulResolverReason, type ResolverSanity } from '../dns/sanity.js';
import { dialerFor } from '../net/egress.js';
import { NetworkStatusBoard, type NetworkStatus } from '../net/network-status.js';
import { Port25Watch } from '../net/port25.js';
import { KeyedSemaphore, Semaphore, type Priority } from '../semaphore.js';
import type { SessionSlot } from '../smtp/prober.js';
import type { SessionOptions } from '../smtp/session.js';
import type { EngineOptions, SmtpObserver } from '../types.js';
import { gatherDomainFacts, type DomainFacts } from './domain-facts.js';

const CACHE_ENTRIES = 50_000;
const FACT_TTL_MS = 10 * 60_000;
/** A domain we could not find out about is asked again soon, not in ten minutes. */
const UNSURE_TTL_MS = 30_000;
const WEB_CHECKS_AT_ONCE = 64;

/**
 * What one verifier keeps between calls: the options, the DNS client and its cache, the per-domain
 * facts and catch-all findings, and the session limits shared by every call in progress.
 */
export class VerifierContext {
  readonly dns: DnsClient;
  readonly sessionOptions: SessionOptions;
  readonly catchAll = new PromiseCache<string, CatchAllFinding>(CACHE_ENTRIES, (finding) =>
    finding.decided ? FACT_TTL_MS : UNSURE_TTL_MS,
  );
  private readonly facts = new PromiseCache<string, DomainFacts>(CACHE_ENTRIES, (facts) =>
    facts.status.kind === 'dns-failure' || facts.status.kind === 'untrusted-dns' ? UNSURE_TTL_MS : FACT_TTL_MS,
  );
  /** One entry: the resolver's sanity, asked when a denial first needs it, then again now and then. */
  private readonly sanity = new PromiseCache<'resolver', ResolverSanity>(1, (sanity) => (sanity.truthful ? FACT_TTL_MS : UNSURE_TTL_MS));
  private resolverLied = false;
  private readonly webSlots = new Semaphore(WEB_CHECKS_AT_ONCE);
  private readonly sessions: Semaphore;
  private readonly sessionsPerHost: KeyedSemaphore;

  /** What this verifier has found out about its network (a blocked port, a lying resolver). */
  readonly network = new NetworkStatusBoard();
  private readonly port25: Port25Watch;

  constructor(
    readonly options: EngineOptions,
    /** Told of every SMTP session and RCPT answer, when someone watches. */
    readonly observer?: SmtpObserver,
  ) {
    this.port25 = new Port25Watch(options.smtpPort, this.network);
    this.dns = new DnsClient({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs });
    this.sessionOptions = {
      port: options.smtpPort,
      heloName: options.heloName,
      mailFrom: options.mailFrom,
      connectTimeoutMs: options.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs,
      startTls: true,
      dial: this.port25.watch(
        dialerFor(options),
      ),
    };
    this.sessions = new Semaphore(options.concurrency);
    this.sessionsPerHost = new KeyedSemaphore(options.perHostConcurrency);
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
   * first paid address does: whether the resolver tells the truth and, when it does, whether the
   * providers' mail hosts can be reached on the SMTP port, through the same watched dialer the
   * probes use (three timed-out hosts mark the port blocked; one connection marks it open). A
   * host that cannot be tried (no address, a private one) leaves the port's state as it was.
   */
  async checkNetwork(): Promise<NetworkStatus> {
    if ((await this.resolverSanity()).truthful) {
      const targets = await mailTargets(this.dns, this.options, undefined);
      await Promise.all(
        targets.flatMap((target) => ('address' in target ? [target.address] : [])).map((address) =>
          this.sessionOptions.dial(address, this.options.smtpPort, this.options.connectTimeoutMs).then(
            (socket) => socket.destroy(),
            () => undefined,
          ),
        ),
      );
    }
    return this.network.status();
  }

  /**
   * A session slot at a host address. The host's own slot is taken first: a session waiting for
   * a busy host must not sit on one of the global slots that sessions to idle hosts could use.
   * A bulk slot is `wanted` back while an interactive probe waits for either limit it counts against.
   */
  readonly takeSlot = async (address: string, priority: Priority): Promise<SessionSlot> => {
    const releaseHost = await this.sessionsPerHost.acquire(address, priority);
    const releaseGlobal = await this.sessions.acquire(priority);
    return {
      release: () => {
        releaseGlobal();
        releaseHost();
      },
      wanted: () => priority === 'bulk' && (this.sessionsPerHost.wanted(address) || this.sessions.wanted),
    };
  };
}
