import type { EgressBench, EgressBenches } from '../core/types.js';

/** How long what the shared benches said about a provider is believed before they are asked again. */
const SHARED_FRESH_MS = 5_000;
/** Providers whose shared benches are remembered at once (a provider is often a host name: many over a long run). */
const PROVIDERS_KEPT = 10_000;

/**
 * What a bench covers, as benches are keyed (docs/architecture.md "Egress"): a domain, by its name,
 * or a whole provider, by its rule's suffix under `*.`, which no domain name can be.
 */
export const wholeProvider = (suffix: string): string => `*.${suffix}`;

const keyOf = (egress: string, provider: string) => `${egress}\n${provider}`;

/** Benches kept in this process alone: `verify --local`, `bulk submit --local`, a verifier without a store. */
export class InProcessBenches implements EgressBenches {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async bench({ egress, provider, cooldownMs }: EgressBench): Promise<void> {
    const key = keyOf(egress, provider);
    this.until.set(key, Math.max(this.until.get(key) ?? 0, this.now() + cooldownMs));
  }

  async benched(provider: string): Promise<readonly string[]> {
    const now = this.now();
    const benched: string[] = [];
    for (const [key, until] of this.until) {
      const [egress, of] = key.split('\n') as [string, string];
      if (until <= now) this.until.delete(key);
      else if (of === provider) benched.push(egress);
    }
    return benched;
  }
}

/**
 * What one verifier knows of the benches (docs/architecture.md "Egress"): its own at once, those
 * of other processes (a shared EgressBenches) as they were at most SHARED_FRESH_MS ago, so that a
 * session asks the store now and then rather than each time. A store that does not answer leaves
 * what is known as it was: sessions go on through the egresses not known to be benched.
 */
export class BenchBoard {
  private readonly own: InProcessBenches;
  private readonly shared = new Map<string, { at: number; egresses: Promise<ReadonlySet<string>> }>();

  constructor(
    private readonly store: EgressBenches | undefined,
    private readonly onStoreError: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.own = new InProcessBenches(now);
  }

  /** The egresses benched at `provider` now, by this verifier or (as last heard) by any process on the store. */
  async benched(provider: string): Promise<ReadonlySet<string>> {
    const [own, shared] = await Promise.all([this.own.benched(provider), this.sharedBenches(provider)]);
    return own.length === 0 ? shared : new Set([...own, ...shared]);
  }

  /** Benches at once here; the store hears of it in the background (its failure is only reported). */
  bench(bench: EgressBench): void {
    void this.own.bench(bench);
    this.store?.bench(bench).catch(this.onStoreError);
  }

  private sharedBenches(provider: string): Promise<ReadonlySet<string>> {
    if (!this.store) return Promise.resolve(new Set());
    const known = this.shared.get(provider);
    if (known && this.now() - known.at < SHARED_FRESH_MS) return known.egresses;
    const egresses = this.store.benched(provider).then(
      (list) => new Set(list),
      (error: unknown) => {
        this.onStoreError(error);
        return known?.egresses ?? new Set<string>();
      },
    );
    // Re-inserted, so the Map's order is the order of asking: the first entry is the stalest.
    this.shared.delete(provider);
    this.shared.set(provider, { at: this.now(), egresses });
    if (this.shared.size > PROVIDERS_KEPT) this.shared.delete(this.shared.keys().next().value!);
    return egresses;
  }
}
