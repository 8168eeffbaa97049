import { describe, expect, it } from 'vitest';
import { WakeableSleep } from '../../src/server/background/wakeable-sleep.js';

const settled = (promise: Promise<void>) => Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20))]);

describe('WakeableSleep', () => {
  it('ends the sleep in progress on wake()', async () => {
    const sleep = new WakeableSleep();
    const nap = sleep.sleep(60_000);
    sleep.wake();
    expect(await settled(nap)).toBe(true);
  });

  it('does not sleep over news that came while the loop was busy: the next sleep returns at once, only that one', async () => {
    const sleep = new WakeableSleep();
    sleep.wake();
    sleep.wake();
    expect(await settled(sleep.sleep(60_000))).toBe(true);
    const next = sleep.sleep(60_000);
    expect(await settled(next)).toBe(false);
    sleep.wake();
    await next;
  });
});
