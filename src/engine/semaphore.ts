import type { VerifyOptions } from './types.js';

/**
 * Who is asking for a slot. An interactive caller (one address, someone waiting for the answer) is
 * served before bulk ones, and bulk holders are asked to give their slot up at the next moment
 * that costs nothing (see `wanted`), so a single verification never queues behind a long list.
 */
export type Priority = NonNullable<VerifyOptions['priority']>;

/** At most `capacity` holders at once; interactive waiters first, then bulk ones, each first come, first served. */
export class Semaphore {
  private held = 0;
  private readonly waiting: Record<Priority, (() => void)[]> = { interactive: [], bulk: [] };

  constructor(private readonly capacity: number) {}

  /** Resolves with the function that gives the slot back (call it exactly once). */
  async acquire(priority: Priority = 'bulk'): Promise<() => void> {
    if (this.held < this.capacity) this.held += 1;
    else await new Promise<void>((resolve) => this.waiting[priority].push(resolve));
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

  /** An interactive caller waits: a bulk holder should release its slot as soon as it can. */
  get wanted(): boolean {
    return this.waiting.interactive.length > 0;
  }

  get idle(): boolean {
    return this.held === 0 && this.waiting.interactive.length === 0 && this.waiting.bulk.length === 0;
  }

  /** A released slot passes straight to the next waiter, so nobody can overtake the queue. */
  private release(): void {
    const next = this.waiting.interactive.shift() ?? this.waiting.bulk.shift();
    if (next) next();
    else this.held -= 1;
  }
}

/**
 * One semaphore per key (an MX host), forgotten when idle so the map does not grow. Its capacity is
 * the one asked for when it is made (a host's rule may lower the limit); callers ask the same for a key.
 */
export class KeyedSemaphore {
  private readonly semaphores = new Map<string, Semaphore>();

  async acquire(key: string, capacity: number, priority: Priority = 'bulk'): Promise<() => void> {
    let semaphore = this.semaphores.get(key);
    if (!semaphore) {
      semaphore = new Semaphore(capacity);
      this.semaphores.set(key, semaphore);
    }
    const release = await semaphore.acquire(priority);
    const owner = semaphore;
    return () => {
      release();
      if (owner.idle && this.semaphores.get(key) === owner) this.semaphores.delete(key);
    };
  }

  wanted(key: string): boolean {
    return this.semaphores.get(key)?.wanted ?? false;
  }
}
