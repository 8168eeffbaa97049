import { describe, expect, it } from 'vitest';
import { retention } from '../../src/server/maintenance/retention.js';
import { startMaintenance } from '../../src/server/maintenance/supervisor.js';
import { FakeClock, settle } from '../support/fake-clock.js';

const HOUR_MS = 3_600_000;
const log = { info: () => undefined, error: () => undefined };

describe('retention', () => {
  it('deletes what is older than the retention in rounds of 50, until a round deletes fewer', async () => {
    const clock = new FakeClock();
    const calls: Array<[string, number]> = [];
    const answers = [50, 50, 3];
    const deleteBefore = async (before: string, limit: number) => (calls.push([before, limit]), answers.shift() ?? 0);
    const maintenance = startMaintenance([retention('job_retention', deleteBefore, HOUR_MS, log, 'finished jobs')], { log, clock, random: () => 0 });
    await settle();
    const before = new Date(clock.now() - HOUR_MS).toISOString();
    expect(calls).toEqual([
      [before, 50],
      [before, 50],
      [before, 50],
    ]);
    await maintenance.stop();
  });

  it('looks every quarter of the retention, at least every second and at most every hour', () => {
    const every = (retentionMs: number) => retention('upload_retention', async () => 0, retentionMs, log, 'uploads').everyMs;
    expect([every(HOUR_MS), every(1_000), every(30 * 86_400_000)]).toEqual([HOUR_MS / 4, 1_000, HOUR_MS]);
  });

  it('looks again after its interval on the clock, with the cutoff moved on', async () => {
    const clock = new FakeClock();
    const cutoffs: string[] = [];
    const deleteBefore = async (before: string) => (cutoffs.push(before), 0);
    const maintenance = startMaintenance([retention('upload_retention', deleteBefore, HOUR_MS, log, 'uploads')], { log, clock, random: () => 0 });
    await settle();
    await clock.advance(HOUR_MS / 4);
    expect(cutoffs.map((cutoff) => Date.parse(cutoff) + HOUR_MS)).toEqual([clock.now() - HOUR_MS / 4, clock.now()]);
    await maintenance.stop();
  });

  it('stops between rounds when the service stops', async () => {
    const clock = new FakeClock();
    let rounds = 0;
    let stopNow: () => void = () => undefined;
    const deleteBefore = async () => {
      rounds++;
      if (rounds === 2) stopNow();
      return 50;
    };
    const maintenance = startMaintenance([retention('job_retention', deleteBefore, HOUR_MS, log, 'finished jobs')], { log, clock });
    stopNow = () => void maintenance.stop();
    await settle();
    await maintenance.stop();
    expect(rounds).toBe(2);
  });
});
