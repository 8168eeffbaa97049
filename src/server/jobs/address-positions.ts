import type { PendingItem } from '../store/model.js';

/**
 * Which positions of a chunk still wait for a result. The engine answers by address, while results
 * are written by position, and a job may hold an address twice: each answer takes its address's
 * next waiting position, so that no position gets two results and none is left without one.
 */
export class AddressPositions {
  /** Positions still waiting for a result, by address (a list, in case a job holds an address twice). */
  private readonly waiting = new Map<string, number[]>();

  constructor(items: readonly PendingItem[]) {
    for (const { email, position } of items) {
      const positions = this.waiting.get(email);
      if (positions) positions.push(position);
      else this.waiting.set(email, [position]);
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

  /** The address's next waiting position, taken by the answer just come; undefined when none waits. */
  take(email: string): number | undefined {
    return this.waiting.get(email)?.shift();
  }
}
