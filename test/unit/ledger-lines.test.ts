import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/server/store/model.js';
import { joinJobRefunds } from '../../src/server/store/ledger-lines.js';

const row = (reason: LedgerEntry['reason'], delta: number, balanceAfter: number, jobId: string | null, createdAt = `t${balanceAfter}`): LedgerEntry => ({
  userId: 1,
  delta,
  balanceAfter,
  reason,
  jobId,
  createdAt,
});

describe('the ledger as read', () => {
  it("shows a job's refund batches as one line: summed, with the balance and time of the last", () => {
    const rows = [
      row('grant', 20, 20, null),
      row('bulk', -9, 11, 'j1'),
      row('refund', 1, 12, 'j1'),
      row('refund', 1, 13, 'j1'),
      row('refund', 3, 16, 'j1'),
      row('refund', 2, 18, 'j1'),
    ];
    expect(joinJobRefunds(rows)).toEqual([row('grant', 20, 20, null), row('bulk', -9, 11, 'j1'), { ...row('refund', 7, 18, 'j1') }]);
  });

  it("joins only rows that follow each other, so each line's balance is the one after it", () => {
    const rows = [row('refund', 1, 5, 'j1'), row('refund', 2, 7, 'j2'), row('refund', 1, 8, 'j1'), row('refund', 1, 9, null), row('refund', 1, 10, null)];
    const lines = joinJobRefunds(rows);
    expect(lines.map((line) => [line.jobId, line.delta, line.balanceAfter])).toEqual([
      ['j1', 1, 5],
      ['j2', 2, 7],
      ['j1', 1, 8],
      [null, 1, 9],
      [null, 1, 10],
    ]);
  });
});
