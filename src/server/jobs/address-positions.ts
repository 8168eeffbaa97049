import type { PendingItem } from '../store/model.js';

/**
 * Which items of a chunk still wait for a result. The engine answers by address, while results are
 * written by position (and scheduled by the item's tries so far), and a job may hold an address
 * twice: each answer takes its address's next waiting item, so that no position gets two results
 * and none is left without one.
 */
export class AddressPositions {
  /** Items still waiting for a result, by address (a list, in case a job holds an address twice). */
  private readonly waiting = new Map<string, PendingItem[]>();

  constructor(items: readonly PendingItem[]) {
    for (const item of items) {
      const waiting = this.waiting.get(item.email);
      if (waiting) waiting.push(item);
      else this.waiting.set(item.email, [item]);
    }
  }

  /** The chunk's addresses, in the order of their first position. */
  addresses(): IterableIterator<string> {
    return this.waiting.keys();
  }

  /** Whether a position of the address still waits for a result. */
  waits(email: string): boolean {
    return (this.waiting.get(email)?.length ?? 0) > 0;
  }

  /** The address's next waiting item, taken by the answer just come; undefined when none waits. */
  take(email: string): PendingItem | undefined {
    return this.waiting.get(email)?.shift();
  }
}
