/** A loop's wait for its next look, which news (new work, a stop) cuts short: the job runner's and the webhook deliverer's. */
export class WakeableSleep {
  private wakeUp: (() => void) | undefined;

  /** Resolves after `ms`, or at once on wake(), whichever comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (this.wakeUp = undefined));
  }

  /** Ends the sleep in progress, if any. */
  wake(): void {
    this.wakeUp?.();
  }
}
