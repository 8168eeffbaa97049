/**
 * The time a maintenance service reads and the timer it waits on, injected so that a test drives
 * them (test/support/fake-clock.ts) instead of waiting for the wall clock.
 */
export interface Clock {
  /** Epoch milliseconds, as Date.now(). */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};
