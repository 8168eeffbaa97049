import { describe, expect, it } from 'vitest';
import { rescuer } from '../../src/server/maintenance/rescuer.js';
import { startMaintenance } from '../../src/server/maintenance/supervisor.js';
import { FakeClock, settle } from '../support/fake-clock.js';

describe('the rescuer', () => {
  it('asks the queue every second to free the leases of gone holders, and tells the runner only of what it freed', async () => {
    const clock = new FakeClock();
    const answers = [0, 7, 0];
    let asked = 0;
    const freed: number[] = [];
    const lines: Array<[object, string]> = [];
    const log = { info: (details: object, message: string) => void lines.push([details, message]), error: () => undefined };
    const queue = { rescue: async () => (asked++, answers.shift() ?? 0) };
    const maintenance = startMaintenance([rescuer(queue, log, (items) => freed.push(items))], { log, clock, random: () => 0 });
    await settle();
    expect([asked, freed]).toEqual([1, []]);
    await clock.advance(1_000);
    expect([asked, freed]).toEqual([2, [7]]);
    expect(lines).toEqual([[{ items: 7 }, 'took over the leases of a runner that is gone']]);
    await clock.advance(1_000);
    expect([asked, freed]).toEqual([3, [7]]);
    await maintenance.stop();
  });
});
