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

/**
 * Collects results (of every chunk a runner works) and writes them in batches: when `batchSize`
 * are waiting, or `flushIntervalMs` after the first of a batch arrived. While the store does not
 * answer (a database restarting) results are kept, up to `maxKept`, and written once it is back,
 * so the work already done is not done again. A crash loses what is unwritten, whose items simply
 * stay pending and are verified again (never charged again).
 */
export class ResultBatcher {
  private waiting: LeasedResult[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Batches are written one after another; this settles when the last one handed over has. */
  private written: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: WorkQueue,
    private readonly options: ResultBatcherOptions,
  ) {}

  add(result: LeasedResult): void {
    this.waiting.push(result);
    if (this.waiting.length >= this.options.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushIntervalMs);
  }

  /** Writes what is waiting; settles once it and every batch before it are written, kept or reported as failed. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      this.written = this.written.then(() => this.write(batch));
    }
    return this.written;
  }

  /** Forgets what is kept and any retry (the runner stops; those items are verified again by whoever claims them). */
  discard(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = [];
  }

  private async write(batch: LeasedResult[]): Promise<void> {
    try {
      if ((await this.queue.saveResults(batch, this.options.policy)).completedJobs > 0) this.options.onJobCompleted?.();
    } catch (error) {
      const keep = error instanceof StoreFault;
      this.options.onWriteError(error, keep);
      if (!keep) return;
      // Kept ahead of what arrived meanwhile, the oldest dropped beyond the bound; tried again after a pause.
      this.waiting = [...batch, ...this.waiting].slice(-this.options.maxKept);
      this.timer ??= setTimeout(() => void this.flush(), this.options.retryMs);
    }
  }
}
