import { StoreFault, type LeasedResult, type SavePolicy, type WorkQueue } from '../store/store.js';

export interface ResultBatcherOptions {
  /** Results written per transaction. */
  batchSize: number;
  /** Longest a finished result waits before it is written. */
  flushIntervalMs: number;
  /** Most results kept while the store does not answer; beyond it the oldest are dropped (verified again later). */
  maxKept: number;
  /** Pause before trying again to write what was kept. */
  retryMs: number;
  /** Every failed write, and whether its results were kept for later (a StoreFault) or dropped (anything else). */
  onWriteError(error: unknown, kept: boolean): void;
  /** What writing them decides beyond the results (refunds). */
  policy?: SavePolicy;
  /** A batch written that completed a job. */
  onJobCompleted?(): void;
}

/** A result waiting to be written, numbered in the order it arrived. */
interface Waiting {
  seq: number;
  result: LeasedResult;
}

/**
 * Collects results (of every chunk a runner works) and writes them in batches: when `batchSize`
 * are waiting, or `flushIntervalMs` after the first of a batch arrived. A batch draws evenly from
 * every chunk with results waiting (first come within each): a small job's few results go into the
 * next batch beside a large job's hundreds, not behind every batch of them already waiting. While the store does not
 * answer (a database restarting) results are kept, up to `maxKept`, and written once it is back,
 * so the work already done is not done again. A crash loses what is unwritten, whose items simply
 * stay pending and are verified again (never charged again).
 */
export class ResultBatcher {
  private waiting: Waiting[] = [];
  private arrived = 0;
  private timer: NodeJS.Timeout | undefined;
  /**
   * Whether batches are being written (one after another). A flag writeAll sets and clears itself,
   * not its promise kept here: with nothing waiting writeAll ends before it returns, and keeping
   * that settled promise would have stopped every later flush from writing anything.
   */
  private writing = false;
  /** Results taken for the write in progress. */
  private inFlight: Waiting[] = [];
  /** Flushes waiting for the results that had arrived before them (`upTo`; of `lease` only, if given) to be written, kept or dropped. */
  private flushes: { upTo: number; lease?: string; settle: () => void }[] = [];

  constructor(
    private readonly queue: WorkQueue,
    private readonly options: ResultBatcherOptions,
  ) {}

  add(result: LeasedResult): void {
    this.waiting.push({ seq: this.arrived++, result });
    // Not a flush per result while a write is in progress: each would scan all that waits (results
    // answered from the cache come by thousands) and ask for what waits at once, a few per batch.
    // The write in progress takes the next full batch when it is done.
    if (this.waiting.length >= this.options.batchSize) this.startWriting();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushIntervalMs);
  }

  /**
   * Writes what is waiting; settles once every result that arrived before it (of `lease` only, if
   * given: a chunk that ends waits for its own) is written, kept or reported as failed.
   */
  flush(lease?: string): Promise<void> {
    // A flush of all that waits makes the interval's own unneeded; a chunk's leaves it for the rest.
    if (lease === undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const settled = new Promise<void>((settle) => this.flushes.push({ upTo: this.arrived, lease, settle }));
    this.settleFlushes();
    this.startWriting();
    return settled;
  }

  /** Starts writing, unless batches are being written already (they go on while a batch is due). */
  private startWriting(): void {
    if (!this.writing) void this.writeAll();
  }

  /** Whether results of this lease are still to be written (waiting, being written, or kept while the store is away). */
  holds(lease: string): boolean {
    return [...this.waiting, ...this.inFlight].some((each) => each.result.lease === lease);
  }

  /** Forgets what is kept and any retry (the runner stops; those items are verified again by whoever claims them). */
  discard(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = [];
    this.settleFlushes();
  }

  /**
   * Writes batch after batch while one is due: a full batch waits, or a flush waits for results
   * still waiting. Not whatever waits: results arriving one by one while a batch is written would
   * then go out a few per transaction. Stops if the store failed (then a retry is set).
   */
  private async writeAll(): Promise<void> {
    this.writing = true;
    let failed = false;
    try {
      while (!failed && this.waiting.length > 0 && (this.waiting.length >= this.options.batchSize || this.flushes.length > 0)) {
        this.inFlight = this.nextBatch();
        failed = !(await this.write(this.inFlight));
        this.inFlight = [];
        this.settleFlushes();
      }
    } finally {
      this.writing = false;
    }
    // Flushes asked for while results were kept settle now: kept counts as settled.
    if (failed) this.settleFlushes(true);
    // Less than a batch left that no flush waits for: written within the interval, as if just arrived.
    else if (this.waiting.length > 0) this.timer ??= setTimeout(() => void this.flush(), this.options.flushIntervalMs);
  }

  /** Up to `batchSize` results, taken in turn from each chunk (lease) with results waiting. */
  private nextBatch(): Waiting[] {
    const byLease = new Map<string, Waiting[]>();
    for (const each of this.waiting) {
      const lease = byLease.get(each.result.lease);
      if (lease) lease.push(each);
      else byLease.set(each.result.lease, [each]);
    }
    const batch: Waiting[] = [];
    const queues = [...byLease.values()];
    for (let round = 0; batch.length < this.options.batchSize && queues.some((queue) => queue.length > round); round++) {
      for (const queue of queues) if (round < queue.length && batch.length < this.options.batchSize) batch.push(queue[round]!);
    }
    const taken = new Set(batch);
    this.waiting = this.waiting.filter((each) => !taken.has(each));
    return batch;
  }

  /** Settles the flushes whose results are all out of hand (all of them when `all`, after a failed write kept the rest). */
  private settleFlushes(all = false): void {
    let oldest = Infinity;
    const oldestOf = new Map<string, number>();
    for (const { seq, result } of [...this.waiting, ...this.inFlight]) {
      oldest = Math.min(oldest, seq);
      oldestOf.set(result.lease, Math.min(oldestOf.get(result.lease) ?? Infinity, seq));
    }
    this.flushes = this.flushes.filter((flush) => {
      if (!all && flush.upTo > (flush.lease === undefined ? oldest : (oldestOf.get(flush.lease) ?? Infinity))) return true;
      flush.settle();
      return false;
    });
  }

  /** True when the batch is out of hand (written, or dropped as not writable); false when the store failed and it was kept. */
  private async write(batch: Waiting[]): Promise<boolean> {
    try {
      if (
        (
          await this.queue.saveResults(
            batch.map((each) => each.result),
            this.options.policy,
          )
        ).completedJobs > 0
      )
        this.options.onJobCompleted?.();
      return true;
    } catch (error) {
      const keep = error instanceof StoreFault;
      this.options.onWriteError(error, keep);
      if (!keep) return true;
      // Kept with what arrived meanwhile, the oldest dropped beyond the bound; tried again after a pause.
      this.waiting = [...batch, ...this.waiting].sort((a, b) => a.seq - b.seq).slice(-this.options.maxKept);
      this.timer ??= setTimeout(() => void this.flush(), this.options.retryMs);
      return false;
    }
  }
}
