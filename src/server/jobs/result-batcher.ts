import type { LeasedResult, WorkQueue } from '../store/store.js';

/**
 * Collects results (of every chunk a runner works) and writes them in batches: when `batchSize`
 * are waiting, or `flushIntervalMs` after the first of a batch arrived. A crash loses at most one
 * unwritten batch, whose items simply stay pending and are verified again (never charged again).
 */
export class ResultBatcher {
  private waiting: LeasedResult[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Batches are written one after another; this settles when the last one handed over has. */
  private written: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: WorkQueue,
    private readonly batchSize: number,
    private readonly flushIntervalMs: number,
    /** A failed write drops its batch (those items stay pending) and is reported here, never thrown into the engine. */
    private readonly onWriteError: (error: unknown) => void,
  ) {}

  add(result: LeasedResult): void {
    this.waiting.push(result);
    if (this.waiting.length >= this.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushIntervalMs);
  }

  /** Writes what is waiting; settles once it and every batch before it are written (or reported as failed). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      this.written = this.written.then(() => this.queue.saveResults(batch)).catch(this.onWriteError);
    }
    return this.written;
  }
}
