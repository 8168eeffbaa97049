/** At most `capacity` holders at once; waiters are served first come, first served. */
export class Semaphore {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly capacity: number) {}

  /** Resolves with the function that gives the slot back (call it exactly once). */
  async acquire(): Promise<() => void> {
    if (this.held < this.capacity) this.held += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  async use<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  get idle(): boolean {
    return this.held === 0 && this.waiting.length === 0;
  }

  /** A released slot passes straight to the next waiter, so nobody can overtake the queue. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held -= 1;
  }
}

/** One semaphore per key (an MX host), forgotten when idle so the map does not grow. */
export class KeyedSemaphore {
  private readonly semaphores = new Map<string, Semaphore>();

  constructor(private readonly capacity: number) {}

  async acquire(key: string): Promise<() => void> {
    let semaphore = this.semaphores.get(key);
    if (!semaphore) {
      semaphore = new Semaphore(this.capacity);
      this.semaphores.set(key, semaphore);
    }
    const release = await semaphore.acquire();
    const owner = semaphore;
    return () => {
      release();
      if (owner.idle && this.semaphores.get(key) === owner) this.semaphores.delete(key);
    };
  }
}
