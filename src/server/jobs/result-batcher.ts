import type { VerificationResult } from '../../engine/types.js';
import type { Store } from '../store/store.js';

/**
 * Collects one job's results and writes them in batches: when `batchSize` are waiting, or
 * `flushIntervalMs` after the first of a batch arrived. A crash loses at most one unwritten batch,
 * whose items simply stay pending and are verified again (never charged again).
 */
export class ResultBatcher {
  private waiting: Array<{ position: number; result: VerificationResult }> = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly jobId: string,
    private readonly batchSize: number,
    private readonly flushIntervalMs: number,
    /** A failed write drops its batch (those items stay pending) and is reported here, never thrown into the engine. */
    private readonly onWriteError: (error: unknown) => void,
  ) {}

  add(position: number, result: VerificationResult): void {
    if (this.closed) return;
    this.waiting.push({ position, result });
    if (this.waiting.length >= this.batchSize) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.flushIntervalMs);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    try {
      this.store.saveResults(this.jobId, batch);
    } catch (error) {
      this.onWriteError(error);
    }
  }

  /** Writes what is waiting and ignores anything added later (the runner is stopping). */
  close(): void {
    this.flush();
    this.closed = true;
  }
}
