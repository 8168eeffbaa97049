import { describe, expect, it } from 'vitest';
import { distinctEmails } from '../../src/server/routes/bulk.js';
import { progressPercent } from '../../src/server/services/job-progress.js';

describe('progressPercent', () => {
  it.each([
    [0, 2_000, 0],
    [1, 3, 33],
    [2, 3, 66],
    [1_999, 2_000, 99],
    [49_999, 50_000, 99],
    [2_000, 2_000, 100],
  ])('%i of %i processed is %i %%: a whole number, 100 only with the last result', (processed, total, percent) => {
    expect(progressPercent({ processed, total })).toBe(percent);
  });
});

describe('distinctEmails', () => {
  it('trims, drops case-insensitive repeats, and keeps the first spelling in order', () => {
    expect(distinctEmails([' Ann@Example.org ', 'bob@example.org', 'ann@example.ORG', 'not an address', 'NOT AN ADDRESS', ''])).toEqual([
      'Ann@Example.org',
      'bob@example.org',
      'not an address',
      '',
    ]);
  });
});
