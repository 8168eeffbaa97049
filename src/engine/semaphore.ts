import type { VerifyOptions } from './types.js';

/**
 * Who is asking for a slot. An interactive caller (one address, someone waiting for the answer) is
 * served before bulk ones, and bulk holders are asked to give their slot up at the next moment
 * that costs nothing (see `wanted`), so a single verification never queues behind a long list.
 */
export type Priority = NonNullable<VerifyOptions['priority']>;

/** Whose work a slot is for (VerifyManyOptions.share); work given none shares this one. */
const NO_SHARE = '';

interface Waiter {
  share: string;
  resolve: () => void;
}

/**
 * At most `capacity` holders at once; interactive waiters first, first come, first served; then
 * bulk ones by share: the share holding the fewest slots first (ties: the share waiting longest),
 * each share's own waiters first come, first served. So one user's long list does not make
 * another's short one wait for all of it (issue 22: first come at the slots made a 10-address job
 * wait for every session of 200,000 addresses queued before it).
 */
export class Semaphore {
  private held = 0;
  private readonly heldBy = new Map<string, number>();
  private readonly interactive: Waiter[] = [];
  /** Bulk waiters by share; shares in the order they began waiting. */
  private readonly bulk = new Map<string, Waiter[]>();

  constructor(private readonly capacity: number) {}

  /** Resolves with the function that gives the slot back (call it exactly once). */
  async acquire(priority: Priority = 'bulk', share: string = NO_SHARE): Promise<() => void> {
    if (this.held < this.capacity) this.take(share);
    else await new Promise<void>((resolve) => this.enqueue(priority, { share, resolve }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(share);
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

  /**
   * A bulk holder of `share` should release its slot as soon as it can: an interactive caller
   * waits, or the work of a share holding at least two slots fewer does (one fewer would only
   * swap the slot back and forth).
   */
  wanted(share: string = NO_SHARE): boolean {
    if (this.interactive.length > 0) return true;
    const mine = this.heldBy.get(share) ?? 0;
    for (const other of this.bulk.keys()) if ((this.heldBy.get(other) ?? 0) + 1 < mine) return true;
    return false;
  }

  get idle(): boolean {
    return this.held === 0 && this.interactive.length === 0 && this.bulk.size === 0;
  }

  private take(share: string): void {
    this.held += 1;
    this.heldBy.set(share, (this.heldBy.get(share) ?? 0) + 1);
  }

  private enqueue(priority: Priority, waiter: Waiter): void {
    if (priority === 'interactive') return void this.interactive.push(waiter);
    const queue = this.bulk.get(waiter.share) ?? [];
    queue.push(waiter);
    this.bulk.set(waiter.share, queue);
  }

  /** A released slot passes straight to the next waiter, so nobody can overtake the queue. */
  private release(share: string): void {
    this.held -= 1;
    const left = this.heldBy.get(share)! - 1;
    if (left > 0) this.heldBy.set(share, left);
    else this.heldBy.delete(share);
    const next = this.interactive.shift() ?? this.nextBulk();
    if (!next) return;
    this.take(next.share);
    next.resolve();
  }

  private nextBulk(): Waiter | undefined {
    let chosen: string | undefined;
    for (const share of this.bulk.keys()) {
      if (chosen === undefined || (this.heldBy.get(share) ?? 0) < (this.heldBy.get(chosen) ?? 0)) chosen = share;
    }
    if (chosen === undefined) return undefined;
    const queue = this.bulk.get(chosen)!;
    const next = queue.shift()!;
    if (queue.length === 0) this.bulk.delete(chosen);
    return next;
  }
}

/**
 * One semaphore per key (an MX host), forgotten when idle so the map does not grow. Its capacity is
 * the one asked for when it is made (a host's rule may lower the limit); callers ask the same for a key.
 */
export class KeyedSemaphore {
  private readonly semaphores = new Map<string, Semaphore>();

  async acquire(key: string, capacity: number, priority: Priority = 'bulk', share?: string): Promise<() => void> {
    let semaphore = this.semaphores.get(key);
    if (!semaphore) {
      semaphore = new Semaphore(capacity);
      this.semaphores.set(key, semaphore);
    }
    const release = await semaphore.acquire(priority, share);
    const owner = semaphore;
    return () => {
      release();
      if (owner.idle && this.semaphores.get(key) === owner) this.semaphores.delete(key);
    };
  }

  wanted(key: string, share?: string): boolean {
    return this.semaphores.get(key)?.wanted(share) ?? false;
  }
}
