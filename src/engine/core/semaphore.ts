import { Counts } from './counts.js';
import type { VerifyOptions } from './types.js';

/**
 * Who is asking for a slot. An interactive caller (one address, someone waiting for the answer) is
 * served before bulk ones, and bulk holders are asked to give their slot up at the next moment
 * that costs nothing (see `wanted`), so a single verification never queues behind a long list.
 */
export type Priority = NonNullable<VerifyOptions['priority']>;

/** Whose work a slot is for (VerifyManyOptions.share); work given none shares this one. */
const NO_SHARE = '';
/** A waiting claim this many times heavier per slot than a holder's takes its slot (see `wanted`). */
const OUTWEIGHS = 4;

/** How a bulk caller's work ranks among its share's other waiters. */
export interface BulkClaim {
  /** Where the work goes (an MX host): the group holding the fewest slots goes first. */
  group?: string;
  /** How long the work is expected to take: then the heaviest first (ties: first come). */
  weight?: number;
}

interface Waiter {
  share: string;
  group: string;
  weight: number;
  resolve: () => void;
}

/**
 * At most `capacity` holders at once; interactive waiters first, first come, first served; then
 * bulk ones by share: the share holding the fewest slots first (ties: the share waiting longest);
 * within a share, a group holding no slot first, then the heaviest claim per slot its group would
 * then hold, then first come. So one user's long list does not make another's short one wait for all of it (issue 22:
 * first come at the slots made a 10-address job wait for every session of 200,000 addresses queued
 * before it), no mail host waits while others hold several slots each, and among hosts the
 * longest sessions start first (they bound a run: docs/architecture.md, "SMTP sessions").
 */
export class Semaphore {
  private held = 0;
  /** Slots held per share and per group. */
  private readonly byShare = new Counts();
  private readonly byGroup = new Counts();
  private readonly interactive: Waiter[] = [];
  /** Bulk waiters by share; shares in the order they began waiting. */
  private readonly bulk = new Map<string, Waiter[]>();
  /** Called once at the next release that leaves a slot nobody waits for. */
  private spareListeners: (() => void)[] = [];

  constructor(private readonly capacity: number) {}

  /** Resolves with the function that gives the slot back (call it exactly once). */
  async acquire(priority: Priority = 'bulk', share: string = NO_SHARE, { group = '', weight = 0 }: BulkClaim = {}): Promise<() => void> {
    if (this.held < this.capacity) this.take(share, group);
    else await new Promise<void>((resolve) => this.enqueue(priority, { share, group, weight, resolve }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(share, group);
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
   * swap the slot back and forth). Within its share: a group holding no slot waits while the
   * holder's holds two or more, or a known claim outweighs the holder's per slot (`claim` is what
   * the holder's work now weighs: what is left of it).
   */
  wanted(share: string = NO_SHARE, { group = '', weight = 0 }: BulkClaim = {}): boolean {
    if (this.interactive.length > 0) return true;
    const mine = this.byShare.of(share);
    for (const other of this.bulk.keys()) if (this.byShare.of(other) + 1 < mine) return true;
    const ours = this.byGroup.of(group);
    const perSlot = weight / Math.max(1, ours);
    return (
      this.bulk.get(share)?.some(
        (waiter) =>
          (this.byGroup.of(waiter.group) === 0 && ours >= 2) ||
          // Not for the holder's own group: the waiter would only open another session where this one is.
          (waiter.group !== group && Number.isFinite(waiter.weight) && this.keyOf(waiter) > OUTWEIGHS * perSlot),
      ) ?? false
    );
  }

  /** A slot is free and nobody waits: taking it keeps no one waiting. */
  get spare(): boolean {
    return this.held < this.capacity && this.interactive.length === 0 && this.bulk.size === 0;
  }

  /** Calls `listener` once, at the next release that leaves a spare slot. */
  onSpare(listener: () => void): void {
    this.spareListeners.push(listener);
  }

  get idle(): boolean {
    return this.held === 0 && this.interactive.length === 0 && this.bulk.size === 0 && this.spareListeners.length === 0;
  }

  private take(share: string, group: string): void {
    this.held += 1;
    this.byShare.add(share, 1);
    this.byGroup.add(group, 1);
  }

  private enqueue(priority: Priority, waiter: Waiter): void {
    if (priority === 'interactive') return void this.interactive.push(waiter);
    const queue = this.bulk.get(waiter.share) ?? [];
    queue.push(waiter);
    this.bulk.set(waiter.share, queue);
  }

  /** A released slot passes straight to the next waiter, so nobody can overtake the queue. */
  private release(share: string, group: string): void {
    this.held -= 1;
    this.byShare.add(share, -1);
    this.byGroup.add(group, -1);
    const next = this.interactive.shift() ?? this.nextBulk();
    if (next) {
      this.take(next.share, next.group);
      next.resolve();
      return;
    }
    const listeners = this.spareListeners;
    this.spareListeners = [];
    for (const listener of listeners) listener();
  }

  private nextBulk(): Waiter | undefined {
    let chosen: string | undefined;
    for (const share of this.bulk.keys()) {
      if (chosen === undefined || this.byShare.of(share) < this.byShare.of(chosen)) chosen = share;
    }
    if (chosen === undefined) return undefined;
    const queue = this.bulk.get(chosen)!;
    let best = 0;
    for (let i = 1; i < queue.length; i++) if (this.ranksBefore(queue[i]!, queue[best]!)) best = i;
    const [next] = queue.splice(best, 1);
    if (queue.length === 0) this.bulk.delete(chosen);
    return next;
  }

  /** A waiting claim's weight per slot its group would then hold. */
  private keyOf(waiter: Waiter): number {
    return waiter.weight / (this.byGroup.of(waiter.group) + 1);
  }

  /** A group holding no slot first; then the heavier claim per slot; then (equal claims) the group holding fewer. */
  private ranksBefore(a: Waiter, b: Waiter): boolean {
    const [heldA, heldB] = [this.byGroup.of(a.group), this.byGroup.of(b.group)];
    if ((heldA === 0) !== (heldB === 0)) return heldA === 0;
    const [keyA, keyB] = [this.keyOf(a), this.keyOf(b)];
    return keyA !== keyB ? keyA > keyB : heldA < heldB;
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

  /** See Semaphore.spare; a key nobody holds is all spare. */
  spare(key: string): boolean {
    return this.semaphores.get(key)?.spare ?? true;
  }

  /** See Semaphore.onSpare; at a key nobody holds, right away (after the caller's turn). */
  onSpare(key: string, listener: () => void): void {
    const semaphore = this.semaphores.get(key);
    if (semaphore) semaphore.onSpare(listener);
    else queueMicrotask(listener);
  }
}
