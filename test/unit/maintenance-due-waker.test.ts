import { describe, expect, it } from 'vitest';
import { dueWaker } from '../../src/server/maintenance/due-waker.js';
import { startMaintenance } from '../../src/server/maintenance/supervisor.js';
import { FakeClock, settle } from '../support/fake-clock.js';

describe('the due waker', () => {
  it('wakes the items due every second, and the runner only when some were', async () => {
    const clock = new FakeClock();
    const answers = [2, 0];
    let asked = 0;
    let woken = 0;
    const lines: string[] = [];
    const log = { info: (_: object, message: string) => void lines.push(message), error: () => undefined };
    const queue = { wakeDue: async () => (asked++, answers.shift() ?? 0) };
    const maintenance = startMaintenance([dueWaker(queue, log, () => woken++)], { log, clock, random: () => 0 });
    await settle();
    expect([asked, woken]).toEqual([1, 1]);
    expect(lines).toEqual(['asking again the addresses whose next try is due']);
    await clock.advance(999);
    expect(asked).toBe(1);
    await clock.advance(1);
    expect([asked, woken]).toEqual([2, 1]);
    await maintenance.stop();
  });
});
