import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addEngineFlags, engineFlags, engineOptionsFrom } from '../../src/cli/options/engine-flags.js';
import { parsedCommand } from '../../src/cli/options/parsed-command.js';
import { isTemporary, nextAttemptAt } from '../../src/engine/core/retry-schedule.js';
import { DEFAULT_ENGINE_OPTIONS } from '../../src/engine/options.js';

const MINUTE = 60_000;
const schedule = DEFAULT_ENGINE_OPTIONS.retryScheduleMs;

describe('the retry schedule', () => {
  it('asks a temporary answer again 1, 6, 16, 31 and 61 minutes after the first, then settles it', () => {
    const first = Date.UTC(2026, 10, 29, 12, 0);
    const dues: number[] = [];
    let now = first;
    for (let attempts = 0; ; attempts += 1) {
      const due = nextAttemptAt(schedule, { attempts, firstAnsweredAt: attempts === 0 ? null : first }, now, null, 0);
      if (due === null) break;
      dues.push(due);
      now = due;
    }
    expect(dues.map((due) => (due - first) / MINUTE)).toEqual([1, 6, 16, 31, 61]);
    expect(dues.at(-1)! - first).toBeGreaterThanOrEqual(60 * MINUTE);
  });

  it("spreads one host's addresses over a tenth of the gap since the try before, not all at the minute mark", () => {
    const first = Date.UTC(2026, 10, 29, 12, 0);
    const tries = { attempts: 2, firstAnsweredAt: first };
    const dues = Array.from({ length: 100 }, (_, index) => nextAttemptAt(schedule, tries, first + 6 * MINUTE, null, index / 100)!);
    // The third try is 16 minutes after the first; the gap since the second is 10 minutes: spread over one.
    expect(Math.min(...dues) - first).toBe(16 * MINUTE);
    expect(Math.max(...dues) - first).toBeGreaterThan(16.9 * MINUTE);
    expect(Math.max(...dues) - first).toBeLessThan(17 * MINUTE);
    expect(new Set(dues).size).toBe(100);
  });

  it('settles at once what would be asked again after the job must settle (settleWithin)', () => {
    const now = Date.UTC(2026, 10, 29, 12, 0);
    expect(nextAttemptAt([5_000, 20_000], { attempts: 0, firstAnsweredAt: null }, now, now + 10_000, 0)).toBe(now + 5_000);
    expect(nextAttemptAt([5_000, 20_000], { attempts: 1, firstAnsweredAt: now - 5_000 }, now, now + 10_000, 0)).toBeNull();
    expect(nextAttemptAt([], { attempts: 0, firstAnsweredAt: null }, now, null, 0)).toBeNull();
  });

  it('takes greylisting, throttling and timeouts as temporary, and neither verdicts nor the verifier going blind', () => {
    expect(isTemporary({ result: 'unknown', reasonCode: 'greylisted' })).toBe(true);
    expect(isTemporary({ result: 'unknown', reasonCode: 'rate_limited' })).toBe(true);
    expect(isTemporary({ result: 'unknown', reasonCode: 'timeout' })).toBe(true);
    expect(isTemporary({ result: 'unknown', reasonCode: 'port25_blocked' })).toBe(false);
    expect(isTemporary({ result: 'unknown', reasonCode: 'resolver_untruthful' })).toBe(false);
    expect(isTemporary({ result: 'unknown', reasonCode: 'mailbox_full' })).toBe(false);
    expect(isTemporary({ result: 'valid', reasonCode: 'accepted' })).toBe(false);
  });
});

describe('--retry-schedule', () => {
  const parsed = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const command = addEngineFlags(new Command('serve').exitOverride());
    command.parse(args, { from: 'user' });
    return engineOptionsFrom(engineFlags(parsedCommand([], command)), env);
  };

  it('takes times with units, plain seconds, or none; the flag over the environment', () => {
    expect(parsed(['--retry-schedule', '5s,20s,1m']).retryScheduleMs).toEqual([5_000, 20_000, 60_000]);
    expect(parsed(['--retry-schedule', '3,8,20']).retryScheduleMs).toEqual([3_000, 8_000, 20_000]);
    expect(parsed(['--retry-schedule', 'none']).retryScheduleMs).toEqual([]);
    expect(parsed([], { MAILVERIFY_RETRY_SCHEDULE: '1m,6m' }).retryScheduleMs).toEqual([60_000, 360_000]);
    expect(parsed(['--retry-schedule', '2s'], { MAILVERIFY_RETRY_SCHEDULE: '1m' }).retryScheduleMs).toEqual([2_000]);
  });

  it('refuses times that do not grow, and names the flag', () => {
    expect(() => parsed(['--retry-schedule', '5m,1m'])).toThrow(/--retry-schedule: "5m,1m" must list times after the first answer, each later/);
    expect(() => parsed(['--retry-schedule', 'soon'])).toThrow(/--retry-schedule: "soon" is no duration/);
  });

  it('refuses the retired greylist flags and variables, naming the new flag', () => {
    expect(() => parsed(['--greylist-retry', '0'])).toThrow(/--greylist-retry is retired/);
    expect(() => parsed([], { MAILVERIFY_GREYLIST_BUDGET: '1000' })).toThrow(/MAILVERIFY_GREYLIST_BUDGET is retired/);
    expect(() => parsed(['--greylist-budget', '1000'])).toThrow(expect.objectContaining({ hint: expect.stringMatching(/--retry-schedule 1m,6m,16m,31m,61m/) }));
  });
});
