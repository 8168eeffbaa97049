import { describe, expect, it } from 'vitest';
import { startMaintenance } from '../../src/server/maintenance/supervisor.js';
import { webhookPruner } from '../../src/server/maintenance/webhook-pruner.js';
import { FakeClock, settle } from '../support/fake-clock.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe('the webhook pruner', () => {
  it('prunes what settled before the retention at start and then hourly, not in between', async () => {
    const clock = new FakeClock();
    const cutoffs: string[] = [];
    const lines: Array<[object, string]> = [];
    const log = { info: (details: object, message: string) => void lines.push([details, message]), error: () => undefined };
    const store = { prune: async (before: string) => (cutoffs.push(before), cutoffs.length === 1 ? 4 : 0) };
    const maintenance = startMaintenance([webhookPruner(store, 30 * DAY_MS, log)], { log, clock, random: () => 0 });
    await settle();
    expect(cutoffs).toEqual([new Date(clock.now() - 30 * DAY_MS).toISOString()]);
    expect(lines).toEqual([[{ pruned: 4 }, 'webhook deliveries and attempts past their retention deleted']]);
    await clock.advance(HOUR_MS - 1);
    expect(cutoffs.length).toBe(1);
    await clock.advance(1);
    expect(cutoffs).toEqual([new Date(clock.now() - HOUR_MS - 30 * DAY_MS).toISOString(), new Date(clock.now() - 30 * DAY_MS).toISOString()]);
    await maintenance.stop();
  });
});
