/**
 * A loop's wait for its next look, which news (new work, a stop) cuts short: the job runner's and
 * the webhook deliverer's. News that comes while the loop is busy (no sleep in progress) makes the
 * next sleep return at once: it is looked at, not slept over.
 */
export class WakeableSleep {
  private wakeUp: (() => void) | undefined;
  private pending = false;

  /** Resolves after `ms`, or at once on wake() (or when one came since the last sleep), whichever comes first. */
  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (this.wakeUp = undefined));
  }

  /** Ends the sleep in progress, or the next one before it starts. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.pending = true;
  }
}
