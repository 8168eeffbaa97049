import type { ProbeAnswer, ProbeRequest } from '../smtp/prober.js';
import { isRetried } from '../smtp/reply-table.js';

export interface GreylistOptions {
  /** Delay before asking again; 0 turns retries off. */
  retryMs: number;
  /** How long after its first answer an address may still be asked again. */
  budgetMs: number;
}

/**
 * Greylisting (and other 4xx answers): the address is asked again after the delay, as long as its
 * budget lasts, and the final answer is the first that is not temporary or the last one in time.
 * Addresses are handed back in batches, so one session asks them all again; a batch waits for the
 * delay after its last address, but a steady trickle cannot hold it back beyond twice the delay.
 */
export class GreylistRetries {
  private batch: ProbeRequest[] = [];
  private timer: NodeJS.Timeout | null = null;
  private batchStartedAt = 0;

  constructor(
    private readonly options: GreylistOptions,
    private readonly askAgain: (requests: ProbeRequest[]) => void,
    /** Told when an address is first put aside for a retry: it holds no session until then. */
    private readonly onRetryLater?: (address: string) => void,
  ) {}

  /** A request whose temporary answers go back into the retry batch; `onFirst` sees the very first answer. */
  request(address: string, onFinal: (answer: ProbeAnswer) => void, onFirst?: (answer: ProbeAnswer) => void): ProbeRequest {
    let firstAnsweredAt: number | null = null;
    const request: ProbeRequest = {
      address,
      answer: (answer) => {
        const first = firstAnsweredAt === null;
        if (firstAnsweredAt === null) {
          firstAnsweredAt = Date.now();
          onFirst?.(answer);
        }
        if (answer.kind !== null && isRetried(answer.kind) && this.mayRetry(firstAnsweredAt)) {
          this.add(request);
          if (first) this.onRetryLater?.(address);
        } else onFinal(answer);
      },
    };
    return request;
  }

  private mayRetry(firstAnsweredAt: number): boolean {
    const { retryMs, budgetMs } = this.options;
    return retryMs > 0 && Date.now() + retryMs - firstAnsweredAt <= budgetMs;
  }

  private add(request: ProbeRequest): void {
    const now = Date.now();
    if (this.batch.length === 0) this.batchStartedAt = now;
    this.batch.push(request);
    if (this.timer) clearTimeout(this.timer);
    const due = Math.min(now + this.options.retryMs, this.batchStartedAt + 2 * this.options.retryMs);
    this.timer = setTimeout(() => this.flush(), due - now);
  }

  /** The batch handed back now, not after the delay: the caller no longer wants the answers (its signal aborted). */
  flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.batch.length > 0) this.flush();
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    this.timer = null;
    this.askAgain(batch);
  }
}
