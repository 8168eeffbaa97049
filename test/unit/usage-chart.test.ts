import { describe, expect, it } from 'vitest';
import { creditsChart, monthOfUsage, USAGE_DAYS, usageSince, verdictsChart } from '../../src/server/dashboard/common/usage-chart.js';

describe("the overview's month of usage", () => {
  const now = new Date('2030-03-31T18:00:00.000Z');

  it('starts at midnight UTC 29 days before today and lays out every day, zero where nothing happened', () => {
    expect(usageSince(now)).toBe('2030-03-02T00:00:00.000Z');
    const days = monthOfUsage(
      [{ day: '2030-03-05', charged: 7, refunded: 2, granted: 100 }],
      [
        { day: '2030-03-31', verdict: 'valid', count: 3 },
        { day: '2030-03-31', verdict: 'invalid', count: 1 },
      ],
      now,
    );
    expect(days).toHaveLength(USAGE_DAYS);
    expect(days[0]!.day).toBe('2030-03-02');
    expect(days.at(-1)!.day).toBe('2030-03-31');
    expect(days.find((day) => day.day === '2030-03-05')).toMatchObject({ charged: 7, refunded: 2, spent: 5, granted: 100, results: 0 });
    expect(days.at(-1)).toMatchObject({ spent: 0, results: 4, verdicts: { valid: 3, invalid: 1, risky: 0, catch_all: 0, unknown: 0 } });
  });

  it("scales bars to a round top and stacks a day's verdicts from the bottom up", () => {
    const days = monthOfUsage(
      [{ day: '2030-03-31', charged: 7, refunded: 0, granted: 0 }],
      [
        { day: '2030-03-31', verdict: 'valid', count: 3 },
        { day: '2030-03-31', verdict: 'invalid', count: 1 },
      ],
      now,
    );
    const credits = creditsChart(days);
    expect(credits.max).toBe(10);
    expect(credits.bars).toHaveLength(1);
    expect(credits.bars[0]!.height).toBeCloseTo(0.7 * (credits.axis.bottom - credits.axis.top), 0);
    const verdicts = verdictsChart(days);
    expect(verdicts.max).toBe(5);
    const [valid, invalid] = verdicts.bars;
    expect([valid!.kind, invalid!.kind]).toEqual(['bar-valid', 'bar-invalid']);
    expect(valid!.y + valid!.height).toBeCloseTo(verdicts.axis.bottom, 0);
    expect(invalid!.y + invalid!.height).toBeCloseTo(valid!.y, 0);
    // An empty month still has an axis to draw.
    expect(creditsChart(monthOfUsage([], [], now))).toMatchObject({ max: 1, bars: [] });
  });
});
