import type { WorkQueue } from '../store/store.js';
import type { BackgroundLog } from '../background/log.js';
import type { RunnerMetrics } from './runner.js';

/** How often a runner looks for leases whose holder is gone (a cheap query over the leased items). */
const RESCUE_EVERY_MS = 1_000;

/**
 * Frees the leases of holders that are gone (docs/architecture.md "Liveness beside leases"), so a
 * dead runner's chunks are claimed again within seconds rather than when their leases run out.
 * It runs on the loop's turns, just before a claim, so what it frees can be claimed at once; a
 * store that cannot rescue is a claim that failed (the loop backs off).
 */
export class Rescuer {
  private lastRescue = 0;

  constructor(
    private readonly queue: WorkQueue,
    private readonly log: BackgroundLog,
    private readonly metrics?: RunnerMetrics,
  ) {}

  /** Rescues when the last rescue is RESCUE_EVERY_MS old or more; throws when the store does not answer. */
  async rescueWhenDue(): Promise<void> {
    if (Date.now() - this.lastRescue < RESCUE_EVERY_MS) return;
    this.lastRescue = Date.now();
    const freed = await this.queue.rescue();
    if (freed > 0) {
      this.metrics?.leases('taken_over', freed);
      this.log.info({ items: freed }, 'took over the leases of a runner that is gone');
    }
  }
}
