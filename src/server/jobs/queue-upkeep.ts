import type { WorkQueue } from '../store/store.js';
import type { BackgroundLog } from '../background/log.js';
import type { RunnerMetrics } from './runner.js';

/** How often a runner looks for leases whose holder is gone and for items due again (cheap queries over two partial indexes). */
const UPKEEP_EVERY_MS = 1_000;

/**
 * What makes items claimable again, on the loop's turns just before a claim, so that what it frees
 * is claimed at once: the leases of holders that are gone (docs/architecture.md "Liveness beside
 * leases"), so a dead runner's chunks are claimed again within seconds rather than when their leases
 * run out, and the items whose temporary answer's next try is due ("Settling later"). A store that
 * cannot do either is a claim that failed (the loop backs off).
 */
export class QueueUpkeep {
  private lastRun = 0;

  constructor(
    private readonly queue: WorkQueue,
    private readonly log: BackgroundLog,
    private readonly metrics?: RunnerMetrics,
  ) {}

  /** Runs when the last run is UPKEEP_EVERY_MS old or more; throws when the store does not answer. */
  async runWhenDue(): Promise<void> {
    if (Date.now() - this.lastRun < UPKEEP_EVERY_MS) return;
    this.lastRun = Date.now();
    const freed = await this.queue.rescue();
    if (freed > 0) {
      this.metrics?.leases('taken_over', freed);
      this.log.info({ items: freed }, 'took over the leases of a runner that is gone');
    }
    const due = await this.queue.wakeDue();
    if (due > 0) this.log.info({ items: due }, 'asking again the addresses whose next try is due');
  }
}
