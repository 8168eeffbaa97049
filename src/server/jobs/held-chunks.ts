import type { WorkChunk } from '../store/store.js';
import type { RunnerMetrics } from './runner.js';

/**
 * While a chunk of a domain has more than this many addresses being asked, the runner claims no
 * other chunk of that domain: the host's session limit is taken already, and the items are left
 * to other runners. Near its end, the next chunk is claimed, so the host's sessions go straight on.
 */
const DOMAIN_TAIL_ITEMS = 20;
/**
 * Chunks claimed that have no answer yet: they wait for DNS, for the catch-all probe, or for a
 * session slot because the engine is busy. Beyond this many (or beyond maxItemsInFlight) the
 * runner is full: it takes on what its engine can start (its share, when several runners share a
 * store) rather than everything claimable, and claims again as answers come in. A full runner
 * still claims for a user holding less than an even share of it, so that a newcomer's small job
 * does not wait for another user's backlog to drain (the engine's slots are shared fairly by user too).
 */
const MAX_STARTING_CHUNKS = 32;

/** A claimed chunk being worked. */
export interface HeldChunk {
  chunk: WorkChunk;
  unanswered: number;
  /** The engine has answered one of its addresses: it is not starting any more. */
  started: boolean;
  /** When the store last confirmed the lease (the runner's clock: only differences are used). */
  renewedAt: number;
  /** Set when the lease is no longer ours: the engine stops asking, answers are dropped. */
  lost: boolean;
  readonly cancel: AbortController;
}

/** What one user holds in a runner: the measure of its share. */
interface UserHolding {
  /** Chunks without a first answer yet, and the addresses in them. */
  startingChunks: number;
  startingItems: number;
  /** Addresses in all its chunks. */
  items: number;
}

/**
 * The chunks a runner has in hand, by lease, and how full they make it. The chunk worker takes
 * chunks in and lets them go, the lease keeper renews and loses them, and the loop asks what it
 * may claim next: one account of the work in hand, so the three never disagree about it.
 */
export class HeldChunks {
  private readonly byLease = new Map<string, HeldChunk>();
  private itemsInFlight = 0;

  constructor(
    private readonly maxItemsInFlight: number,
    private readonly metrics?: RunnerMetrics,
  ) {}

  get size(): number {
    return this.byLease.size;
  }

  get(lease: string): HeldChunk | undefined {
    return this.byLease.get(lease);
  }

  values(): IterableIterator<HeldChunk> {
    return this.byLease.values();
  }

  /** The leases of the chunks still being worked (a chunk already stopped is not kept from others any longer than its lease). */
  leasesKept(): string[] {
    return [...this.byLease].filter(([, entry]) => !entry.lost).map(([lease]) => lease);
  }

  /** A chunk just claimed, taken into hand. */
  hold(chunk: WorkChunk): HeldChunk {
    const entry: HeldChunk = {
      chunk,
      unanswered: chunk.items.length,
      started: false,
      renewedAt: Date.now(),
      lost: false,
      cancel: new AbortController(),
    };
    this.byLease.set(chunk.lease, entry);
    this.itemsInFlight += chunk.items.length;
    this.reportInFlight();
    return entry;
  }

  /** A chunk worked to its end and its lease given back. */
  drop(chunk: WorkChunk): void {
    this.byLease.delete(chunk.lease);
    this.itemsInFlight -= chunk.items.length;
    this.reportInFlight();
  }

  /**
   * The engine answered one of the chunk's addresses or put one aside. True at the chunk's first
   * answer (the engine has room for more) and at its tail (its domain is free again): moments to claim.
   */
  progressed(entry: HeldChunk): boolean {
    const first = !entry.started;
    entry.started = true;
    return first || entry.unanswered === DOMAIN_TAIL_ITEMS;
  }

  /** Domains this runner is busy with: it leaves their other chunks to other runners for now. */
  busyDomains(): string[] {
    return [...new Set([...this.byLease.values()].filter((entry) => entry.unanswered > DOMAIN_TAIL_ITEMS).map((entry) => entry.chunk.domain))];
  }

  full(): boolean {
    return this.itemsInFlight >= this.maxItemsInFlight || this.starting() >= MAX_STARTING_CHUNKS;
  }

  /**
   * When full, the users holding their share of the runner or more are not claimed for: of the
   * addresses in its starting chunks, or of its items in flight, split evenly between the users with
   * work in it (see MAX_STARTING_CHUNKS); and a user holding MAX_STARTING_CHUNKS starting chunks on
   * its own. Starting work is counted in addresses, not chunks: another user's large chunks waiting
   * for a session at busy hosts then fill that user's share, never another's, and a small job's
   * one-address chunks at idle hosts are all claimed at once, however many users share the runner.
   */
  usersToSkip(): number[] {
    if (!this.full()) return [];
    const byUser = new Map<number, UserHolding>();
    for (const entry of this.byLease.values()) {
      const user = byUser.get(entry.chunk.userId) ?? { startingChunks: 0, startingItems: 0, items: 0 };
      if (!entry.started) {
        user.startingChunks += 1;
        user.startingItems += entry.chunk.items.length;
      }
      user.items += entry.chunk.items.length;
      byUser.set(entry.chunk.userId, user);
    }
    const holdings = [...byUser.values()];
    const startingShare = holdings.reduce((sum, user) => sum + user.startingItems, 0) / byUser.size;
    const itemsShare = this.maxItemsInFlight / byUser.size;
    return [...byUser]
      .filter(([, user]) => user.startingItems >= startingShare || user.startingChunks >= MAX_STARTING_CHUNKS || user.items >= itemsShare)
      .map(([userId]) => userId);
  }

  private starting(): number {
    return [...this.byLease.values()].filter((entry) => !entry.started).length;
  }

  private reportInFlight(): void {
    this.metrics?.inFlight(this.byLease.size, this.itemsInFlight);
  }
}
