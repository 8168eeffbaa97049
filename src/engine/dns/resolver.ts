import { Resolver } from 'node:dns/promises';
import { PromiseCache } from '../core/cache.js';
import { Semaphore } from '../core/semaphore.js';

/**
 * How a lookup failed. NXDOMAIN and NODATA are answers (the name, or the record, does not
 * exist); the others mean we could not find out, and must never turn into an `invalid` verdict.
 */
export type DnsFailure = 'NXDOMAIN' | 'NODATA' | 'SERVFAIL' | 'TIMEOUT' | 'REFUSED' | 'ERROR';

export type DnsAnswer<T> = { ok: true; records: T[] } | { ok: false; failure: DnsFailure };

export interface MxRecord {
  exchange: string;
  priority: number;
}

export interface DnsClientOptions {
  /** `ip[:port]` each; empty for the system's resolvers. */
  servers: readonly string[];
  /** Budget of one lookup, retries included. */
  timeoutMs: number;
}

const FAILURE_BY_CODE: Record<string, DnsFailure> = {
  ENOTFOUND: 'NXDOMAIN',
  ENODATA: 'NODATA',
  ESERVFAIL: 'SERVFAIL',
  ETIMEOUT: 'TIMEOUT',
  EREFUSED: 'REFUSED',
};

const CACHE_ENTRIES = 100_000;
const ANSWER_TTL_MS = 10 * 60_000;
/** Failures to find out are kept briefly: a resolver hiccup must not stick to a long-lived verifier. */
const FAILURE_TTL_MS = 30_000;
/** c-ares doubles its timeout on each retry: three shares of the budget cover the first try and one retry. */
const TRIES = 2;
/** Queries in flight at once: a list of 20,000 domains must not become 40,000 UDP packets in one burst. */
const MAX_IN_FLIGHT = 256;
/** Below this much budget left, an early c-ares timeout is final. */
const MIN_RETRY_MS = 250;

type Query<T> = (resolver: Resolver) => Promise<T[]>;

/** NXDOMAIN and NODATA are answers about the name; the other failures say nothing about it. */
export function isDefiniteFailure(failure: DnsFailure): boolean {
  return failure === 'NXDOMAIN' || failure === 'NODATA';
}

/** A readable name of a failure, for `reason`: "NXDOMAIN", "SERVFAIL", "timeout". */
export function describeDnsFailure(failure: DnsFailure): string {
  return failure === 'TIMEOUT' ? 'timeout' : failure === 'ERROR' ? 'error' : failure;
}

/**
 * DNS lookups that never throw: each answer is records or a classified failure. Answers are
 * cached per client, and concurrent lookups of one name and type share one query.
 */
export class DnsClient {
  private readonly resolver: Resolver;
  private readonly cache = new PromiseCache<string, DnsAnswer<unknown>>(CACHE_ENTRIES, (answer) =>
    answer.ok || isDefiniteFailure(answer.failure) ? ANSWER_TTL_MS : FAILURE_TTL_MS,
  );
  private readonly inFlight = new Semaphore(MAX_IN_FLIGHT);

  constructor(private readonly options: DnsClientOptions) {
    this.resolver = this.channel(options.timeoutMs / 3, TRIES);
  }

  mx(name: string): Promise<DnsAnswer<MxRecord>> {
    return this.lookup('MX', name, (resolver) => resolver.resolveMx(name));
  }

  /** An MX lookup that neither reads nor fills the cache: for asking whether the resolver has changed its mind. */
  freshMx(name: string): Promise<DnsAnswer<MxRecord>> {
    return this.inFlight.use(() => this.guarded((resolver) => resolver.resolveMx(name)));
  }

  /** Forgets every cached answer (they came from a resolver found lying). */
  forget(): void {
    this.cache.clear();
  }

  ipv4(name: string): Promise<DnsAnswer<string>> {
    return this.lookup('A', name, (resolver) => resolver.resolve4(name));
  }

  ipv6(name: string): Promise<DnsAnswer<string>> {
    return this.lookup('AAAA', name, (resolver) => resolver.resolve6(name));
  }

  /**
   * PTR records of a name (`5.113.0.203.in-addr.arpa`), for the egress's standing (standing.ts).
   * A query, not `reverse()`: that answers from /etc/hosts first, and reverse DNS is what the world sees.
   */
  ptr(name: string): Promise<DnsAnswer<string>> {
    return this.lookup('PTR', name, (resolver) => resolver.resolvePtr(name));
  }

  /**
   * A and AAAA together, IPv4 first. Records if either has some; otherwise the more telling
   * failure: a real failure beats NODATA, which beats NXDOMAIN (a name with an AAAA only exists).
   */
  async addresses(name: string): Promise<DnsAnswer<string>> {
    const [v4, v6] = await Promise.all([this.ipv4(name), this.ipv6(name)]);
    if (v4.ok || v6.ok) return { ok: true, records: [...(v4.ok ? v4.records : []), ...(v6.ok ? v6.records : [])] };
    const unsure = [v4.failure, v6.failure].find((failure) => !isDefiniteFailure(failure));
    if (unsure) return { ok: false, failure: unsure };
    return v4.failure === 'NODATA' || v6.failure === 'NODATA' ? { ok: false, failure: 'NODATA' } : { ok: false, failure: 'NXDOMAIN' };
  }

  private lookup<T>(type: string, name: string, query: Query<T>): Promise<DnsAnswer<T>> {
    const key = `${type} ${name.toLowerCase()}`;
    return this.cache.get(key, () => this.inFlight.use(() => this.guarded(query))) as Promise<DnsAnswer<T>>;
  }

  /**
   * Runs a query under the whole budget. c-ares's timeouts are per try and adaptive: after fast
   * answers from a server it shortens them (c-ares ≥ 1.22), so a slow but real answer can fail with
   * ETIMEOUT long before our budget is spent. Such an early timeout is asked once more on a fresh
   * channel, whose one try waits for the rest of the budget.
   */
  private async guarded<T>(query: Query<T>): Promise<DnsAnswer<T>> {
    const startedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<DnsAnswer<T>>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, failure: 'TIMEOUT' }), this.options.timeoutMs);
    });
    const ask = (resolver: Resolver): Promise<DnsAnswer<T>> =>
      query(resolver).then(
        (records): DnsAnswer<T> => (records.length > 0 ? { ok: true, records } : { ok: false, failure: 'NODATA' }),
        (error: NodeJS.ErrnoException): DnsAnswer<T> => ({ ok: false, failure: FAILURE_BY_CODE[error.code ?? ''] ?? 'ERROR' }),
      );
    const answer = ask(this.resolver).then((first) => {
      const remainingMs = this.options.timeoutMs - (Date.now() - startedAt);
      if (first.ok || first.failure !== 'TIMEOUT' || remainingMs < MIN_RETRY_MS) return first;
      return ask(this.channel(remainingMs, 1));
    });
    try {
      return await Promise.race([answer, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private channel(timeoutMs: number, tries: number): Resolver {
    const resolver = new Resolver({ timeout: Math.max(50, Math.floor(timeoutMs)), tries });
    if (this.options.servers.length > 0) resolver.setServers([...this.options.servers]);
    return resolver;
  }
}
