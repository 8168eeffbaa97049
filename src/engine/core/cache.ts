interface Entry<V> {
  value: Promise<V>;
  expiresAt: number;
  settled?: { value: V };
}

/**
 * A promise cache with expiry and a size bound: concurrent asks for one key share one promise
 * (one DNS query, one catch-all probe), answers are kept for a while, and a long-lived verifier
 * (the service's) does not grow without end. The oldest entries go first when it is full.
 */
export class PromiseCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();

  /** `ttlOf` says how long a settled value stays; a rejected promise is never kept. */
  constructor(
    private readonly maxEntries: number,
    private readonly ttlOf: (value: V) => number,
  ) {}

  get(key: K, create: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;
    if (cached) this.entries.delete(key);

    const value = create();
    const entry: Entry<V> = { value, expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    value.then(
      (settled) => {
        entry.settled = { value: settled };
        entry.expiresAt = Date.now() + this.ttlOf(settled);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    this.evictOverflow();
    return value;
  }

  /** Forgets every entry: later gets ask afresh. */
  clear(): void {
    this.entries.clear();
  }

  /** The value for `key` if it is cached and already settled. */
  peek(key: K): V | undefined {
    const cached = this.entries.get(key);
    return cached && cached.expiresAt > Date.now() ? cached.settled?.value : undefined;
  }

  private evictOverflow(): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) return;
      this.entries.delete(key);
    }
  }
}
