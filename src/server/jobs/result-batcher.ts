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
  /** The batches handed to the store, written one after another so that progress only ever grows. */
  private writes: Promise<void> = Promise.resolve();

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
    if (this.waiting.length >= this.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushIntervalMs);
  }

  /** Hands what is waiting to the store; resolves (never rejects) once every batch so far is written or reported. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      this.writes = this.writes.then(() => this.store.saveResults(this.jobId, batch)).catch((error: unknown) => this.onWriteError(error));
    }
    return this.writes;
  }

  /** Writes what is waiting and ignores anything added later (the runner is stopping). */
  close(): Promise<void> {
    this.closed = true;
    return this.flush();
  }
}
