import type { Clock } from '../../src/server/maintenance/clock.js';

/**
 * A clock that moves only when the test says so: timers fire, in order, as `advance` passes their
 * time, each after the promises queued before it have settled (a turn's store calls are awaited).
 */
export class FakeClock implements Clock {
  private at: number;
  private readonly timers = new Map<number, { due: number; callback: () => void }>();
  private nextId = 1;

  constructor(start = Date.parse('2026-11-21T12:00:00.000Z')) {
    this.at = start;
  }

  now(): number {
    return this.at;
  }

  setTimeout(callback: () => void, ms: number): number {
    const id = this.nextId++;
    this.timers.set(id, { due: this.at + ms, callback });
    return id;
  }

  clearTimeout(timer: unknown): void {
    this.timers.delete(timer as number);
  }

  /** The waits set and not yet fired, in ms from now. */
  pending(): number[] {
    return [...this.timers.values()].map((timer) => timer.due - this.at).sort((a, b) => a - b);
  }

  /** Moves time on by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const until = this.at + ms;
    await settle();
    for (;;) {
      const next = [...this.timers.entries()].filter(([, timer]) => timer.due <= until).sort(([, a], [, b]) => a.due - b.due)[0];
      if (!next) break;
      this.timers.delete(next[0]);
      this.at = next[1].due;
      next[1].callback();
      await settle();
    }
    this.at = until;
  }
}

/** Lets the promises already queued run: a turn of a service awaits a few of them. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 10; round++) await new Promise<void>((resolve) => setImmediate(resolve));
}
