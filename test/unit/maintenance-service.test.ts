import { describe, expect, it } from 'vitest';
import { JITTER, type MaintenanceService } from '../../src/server/maintenance/service.js';
import { startMaintenance } from '../../src/server/maintenance/supervisor.js';
import { FakeClock, settle } from '../support/fake-clock.js';

/** A service that counts its turns and answers what the test queues (a number of rows, or an error to throw). */
function countingService(name: string, everyMs: number, answers: Array<number | Error> = []) {
  const turns: Array<{ now: number; signal: AbortSignal }> = [];
  const service: MaintenanceService = {
    name,
    everyMs,
    failed: `${name} failed`,
    async run(turn) {
      turns.push(turn);
      const answer = answers.shift() ?? 0;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { service, turns };
}

function recorder() {
  const errors: Array<{ details: object; message: string }> = [];
  const runs: Array<[string, string, number]> = [];
  return {
    errors,
    runs,
    log: { info: () => undefined, error: (details: object, message: string) => errors.push({ details, message }) },
    metrics: { ran: (service: string, outcome: 'ok' | 'error', rows: number) => void runs.push([service, outcome, rows]) },
  };
}

describe('the maintenance supervisor', () => {
  it('runs each service at start, then again after its own interval, each on its own timer', async () => {
    const clock = new FakeClock();
    const fast = countingService('fast', 1_000);
    const slow = countingService('slow', 60_000);
    const { log } = recorder();
    const maintenance = startMaintenance([fast.service, slow.service], { log, clock, random: () => 0 });
    await settle();
    expect([fast.turns.length, slow.turns.length]).toEqual([1, 1]);
    expect(maintenance.names).toEqual(['fast', 'slow']);
    await clock.advance(999);
    expect(fast.turns.length).toBe(1);
    await clock.advance(1);
    expect(fast.turns.length).toBe(2);
    expect(fast.turns[1]!.now).toBe(fast.turns[0]!.now + 1_000);
    await clock.advance(58_999);
    expect([fast.turns.length, slow.turns.length]).toEqual([60, 1]);
    await clock.advance(1);
    expect(slow.turns.length).toBe(2);
    await maintenance.stop();
  });

  it('waits up to a tenth less than the interval, at random, never more', async () => {
    const clock = new FakeClock();
    const { service } = countingService('jittered', 10_000);
    const { log } = recorder();
    const shortest = startMaintenance([service], { log, clock, random: () => 0.999999 });
    await settle();
    expect(clock.pending()[0]).toBeCloseTo(10_000 * (1 - JITTER), 0);
    await shortest.stop();
    const longest = startMaintenance([service], { log, clock, random: () => 0 });
    await settle();
    expect(clock.pending()).toEqual([10_000]);
    await longest.stop();
  });

  it('logs a failed turn with the service, counts it, and runs again at the usual time', async () => {
    const clock = new FakeClock();
    const { service, turns } = countingService('flaky', 1_000, [new Error('store down'), 3]);
    const { log, metrics, errors, runs } = recorder();
    const maintenance = startMaintenance([service], { log, metrics, clock, random: () => 0 });
    await settle();
    expect(errors).toEqual([{ details: { err: new Error('store down'), service: 'flaky' }, message: 'flaky failed' }]);
    await clock.advance(1_000);
    expect(turns.length).toBe(2);
    expect(runs).toEqual([
      ['flaky', 'error', 0],
      ['flaky', 'ok', 3],
    ]);
    await maintenance.stop();
  });

  it('stops: no timer left, no turn after, and a turn in progress is told and awaited', async () => {
    const clock = new FakeClock();
    let release: () => void = () => undefined;
    let seen: AbortSignal | undefined;
    let turns = 0;
    const service: MaintenanceService = {
      name: 'slow_turn',
      everyMs: 1_000,
      failed: 'failed',
      run: ({ signal }) => {
        turns++;
        seen = signal;
        return new Promise<number>((resolve) => (release = () => resolve(0)));
      },
    };
    const { log } = recorder();
    const maintenance = startMaintenance([service], { log, clock });
    await settle();
    let stopped = false;
    const stopping = maintenance.stop().then(() => (stopped = true));
    await settle();
    expect(seen?.aborted).toBe(true);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(clock.pending()).toEqual([]);
    await clock.advance(10_000);
    expect(turns).toBe(1);
  });
});
