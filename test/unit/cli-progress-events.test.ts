import { describe, expect, it } from 'vitest';
import { progressEvents, writeSummaryEvent } from '../../src/cli/commands/bulk/support/events.js';
import { everyInterval } from '../../src/cli/commands/bulk/support/progress.js';
import type { JobProgress } from '../../src/client/types.js';

/** `--json` waits as NDJSON events, and a log's line every 10 s, on a clock the test moves. */

const progress = (job_id: string, processed: number, total = 4): JobProgress => ({
  job_id,
  status: processed === total ? 'completed' : 'processing',
  processed,
  total,
  progress_percent: Math.floor((100 * processed) / total),
});

function recorder() {
  let written = '';
  const stdout = { write: (chunk: string) => ((written += chunk), true) } as unknown as NodeJS.WritableStream;
  return {
    stdout,
    lines: () =>
      written
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('progressEvents', () => {
  it('writes a job when its progress changed, at most one a second per job, never the same twice', () => {
    let now = 0;
    const out = recorder();
    const onPoll = progressEvents(out, () => now);
    onPoll([progress('a', 0), progress('b', 0)]);
    now = 250;
    onPoll([progress('a', 1), progress('b', 0)]); // a changed, but within the second: waits
    now = 1_000;
    onPoll([progress('a', 1), progress('b', 0)]); // a's change is due now; b is unchanged
    now = 1_500;
    onPoll([progress('a', 2), progress('b', 1)]); // b may, a may not yet
    expect(out.lines().map(({ job_id, processed }) => `${job_id as string}${processed as number}`)).toEqual(['a0', 'b0', 'a1', 'b1']);
    expect(out.lines()[0]).toEqual({ event: 'progress', job_id: 'a', status: 'processing', processed: 0, total: 4, progress_percent: 0 });
  });

  it('ends with a summary event carrying the fields it is given', () => {
    const out = recorder();
    writeSummaryEvent(out, { jobs: [{ jobId: 'a', queued: 4 }], total: 5, duplicates: 1, invalid: 0 });
    expect(out.lines()).toEqual([{ event: 'summary', jobs: [{ jobId: 'a', queued: 4 }], total: 5, duplicates: 1, invalid: 0 }]);
  });
});

describe('everyInterval', () => {
  it('passes the first value at once, then one each 10 s, changed or not', () => {
    let now = 0;
    const seen: number[] = [];
    const line = everyInterval(
      (value: number) => seen.push(value),
      () => now,
    );
    for (now = 0; now <= 25_000; now += 500) line(now);
    expect(seen).toEqual([0, 10_000, 20_000]);
  });
});
