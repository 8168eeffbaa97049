import { describe, expect, it } from 'vitest';
import { benchExpirer } from '../../src/server/maintenance/bench-expirer.js';
import { startMaintenance } from '../../src/server/maintenance/supervisor.js';
import { FakeClock, settle } from '../support/fake-clock.js';

describe('the bench expirer', () => {
  it('deletes the benches that ran out at start and then every minute, and counts them', async () => {
    const clock = new FakeClock();
    let asked = 0;
    const runs: Array<[string, string, number]> = [];
    const log = { info: () => undefined, error: () => undefined };
    const benches = { expire: async () => (++asked === 2 ? 3 : 0) };
    const metrics = { ran: (service: string, outcome: 'ok' | 'error', rows: number) => void runs.push([service, outcome, rows]) };
    const maintenance = startMaintenance([benchExpirer(benches)], { log, metrics, clock, random: () => 0 });
    await settle();
    await clock.advance(59_999);
    expect(asked).toBe(1);
    await clock.advance(1);
    expect(asked).toBe(2);
    expect(runs).toEqual([
      ['bench_expirer', 'ok', 0],
      ['bench_expirer', 'ok', 3],
    ]);
    await maintenance.stop();
  });
});
