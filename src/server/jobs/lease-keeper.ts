import type { HolderStanding } from '../store/model.js';
import type { WorkChunk, WorkQueue } from '../store/store.js';
import type { HeldChunk, HeldChunks } from './held-chunks.js';
import type { ResultBatcher } from './result-batcher.js';
import type { BackgroundLog } from '../background/log.js';
import type { RunnerMetrics } from './runner.js';

export interface LeaseKeeperOptions {
  queue: WorkQueue;
  held: HeldChunks;
  /** Where the results of released chunks may still wait to be written. */
  batcher: ResultBatcher;
  leaseMs: number;
  standing?: HolderStanding;
  metrics?: RunnerMetrics;
  log: BackgroundLog;
}

/**
 * Keeps the leases of the chunks in hand for as long as they are worked, and no longer: renews them
 * every third of their length, stops a chunk the moment its lease may be someone else's (taken over,
 * not renewed in time, or this holder's standing lost), and gives leases back when their chunk ends.
 * A runner asking for items another holds would verify them twice; one holding leases it no longer
 * works would keep them from everyone until they ran out.
 */
export class LeaseKeeper {
  private readonly renewEveryMs: number;
  private readonly renewal: NodeJS.Timeout;
  /** One renewal at a time: a slow store never gets a second one piled on the first. */
  private renewing = false;
  /** A renewal was asked for (renewNow) while one was in progress: another follows it at once. */
  private renewAgain = false;
  /** Stopped: nothing renews any more, however it is asked (the store may be closed next). */
  private stopped = false;
  /**
   * Leases whose release failed (the store away, as when this holder lost its standing): released
   * once the store answers and their results kept meanwhile are written, rather than left to run
   * out while this holder, alive, keeps them from everyone.
   */
  private readonly unreleased = new Set<string>();

  constructor(private readonly options: LeaseKeeperOptions) {
    const { held, standing } = options;
    // Others may soon take over every lease of a holder that lost its standing: stop asking for them all now.
    standing?.onLapse(() => {
      for (const entry of held.values()) this.lose(entry, 'this process could not show the store in time that it is alive');
    });
    this.renewEveryMs = options.leaseMs / 3;
    this.renewal = setInterval(() => this.renewNow(), this.renewEveryMs);
  }

  /**
   * Renews now (also on the timer): what the store answers says which chunks lost their lease. Asked
   * at once when jobs were deleted, whose items then hold no lease, so that their chunks stop now.
   */
  renewNow(): void {
    if (this.stopped || this.options.held.size === 0) return;
    if (this.renewing) {
      this.renewAgain = true;
      return;
    }
    this.renewing = true;
    void this.renew().finally(() => {
      this.renewing = false;
      if (this.renewAgain) {
        this.renewAgain = false;
        this.renewNow();
      }
    });
  }

  /** Renews nothing more (the runner is stopping). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.renewal);
  }

  /** Gives a chunk's lease back, its results written first: once released, its items are anyone's to claim. */
  async release(chunk: WorkChunk): Promise<void> {
    await this.options.queue.releaseLeases([chunk.lease]).catch((error: unknown) => {
      this.unreleased.add(chunk.lease);
      this.options.log.error({ err: error, jobId: chunk.jobId }, 'could not release a lease; trying again once the store answers');
    });
  }

  /** Releases the leases whose release failed and whose results are all written; throws when the store does not answer. */
  async releaseLeft(): Promise<void> {
    const ready = [...this.unreleased].filter((lease) => !this.options.batcher.holds(lease));
    if (ready.length === 0) return;
    await this.options.queue.releaseLeases(ready);
    for (const lease of ready) this.unreleased.delete(lease);
  }

  private async renew(): Promise<void> {
    const { queue, held, leaseMs, metrics, log } = this.options;
    const leases = held.leasesKept();
    const askedAt = Date.now();
    try {
      const kept = new Set(await queue.renewLeases(leases, leaseMs));
      metrics?.leases('renewed', kept.size);
      for (const lease of leases) {
        const entry = held.get(lease);
        if (!entry) continue;
        if (kept.has(lease)) entry.renewedAt = askedAt;
        else this.lose(entry, 'its lease was taken over by another runner');
      }
    } catch (error) {
      log.error({ err: error }, 'could not renew the leases of the work in hand');
      // Without the store's word, a lease that runs out before the next renewal may be someone else's
      // by then: stop now rather than go on asking for items another runner may hold.
      for (const entry of held.values()) {
        if (askedAt + 2 * this.renewEveryMs - entry.renewedAt > leaseMs) this.lose(entry, 'its lease could not be renewed before it ran out');
      }
    }
  }

  /** The lease is no longer ours: stop the engine's questions for it and drop its answers. */
  private lose(entry: HeldChunk, why: string): void {
    if (entry.lost || entry.unanswered === 0) return;
    entry.lost = true;
    entry.cancel.abort();
    this.options.metrics?.leases('lost', 1);
    this.options.log.info({ jobId: entry.chunk.jobId, domain: entry.chunk.domain, unanswered: entry.unanswered }, `stopped a chunk: ${why}`);
  }
}
