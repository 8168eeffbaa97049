import { VERDICTS, type Verdict } from '../../../engine/core/types.js';
import type { DailyCredits, DailyVerdicts } from '../../store/store.js';

/**
 * The overview's month of usage (docs/architecture.md "The dashboard"): the store's daily sums
 * laid out as every UTC day of the window, and the geometry of its two server-drawn SVG bar charts,
 * so that the template only places what is computed here and the page needs no script.
 */

/** Days shown, today included. */
export const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface UsageDay {
  day: string;
  charged: number;
  refunded: number;
  granted: number;
  /** Charged less refunded: what the day cost in the end. */
  spent: number;
  verdicts: Record<Verdict, number>;
  /** Results of the day's completed jobs, all verdicts. */
  results: number;
}

/** The first instant of the window: midnight UTC, USAGE_DAYS − 1 days before `now`'s day. */
export function usageSince(now: Date): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (USAGE_DAYS - 1) * DAY_MS).toISOString();
}

/** Every day of the window, oldest first, zero where nothing happened. */
export function monthOfUsage(credits: readonly DailyCredits[], verdicts: readonly DailyVerdicts[], now: Date): UsageDay[] {
  const first = Date.parse(usageSince(now));
  const days = Array.from({ length: USAGE_DAYS }, (_, index): UsageDay => ({
    day: new Date(first + index * DAY_MS).toISOString().slice(0, 10),
    charged: 0,
    refunded: 0,
    granted: 0,
    spent: 0,
    verdicts: Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<Verdict, number>,
    results: 0,
  }));
  const byDay = new Map(days.map((day) => [day.day, day]));
  for (const { day, charged, refunded, granted } of credits) {
    const usage = byDay.get(day);
    if (usage) Object.assign(usage, { charged, refunded, granted, spent: Math.max(0, charged - refunded) });
  }
  for (const { day, verdict, count } of verdicts) {
    const usage = byDay.get(day);
    // A result stored before verdicts had today's names is left out rather than drawn as nothing.
    if (!usage || !(verdict in usage.verdicts)) continue;
    usage.verdicts[verdict] += count;
    usage.results += count;
  }
  return days;
}

/** The plot's size in SVG units; the SVG scales to the page's width. */
const PLOT = { left: 44, top: 10, width: 600, height: 160, bottom: 24 };
const SLOT = PLOT.width / USAGE_DAYS;
const BAR_WIDTH = SLOT * 0.7;

export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The CSS class that colours it (bar-spent, bar-valid, …). */
  kind: string;
}

export interface Chart {
  width: number;
  height: number;
  bars: Bar[];
  /** The value axis: the top value and where its line is drawn. */
  max: number;
  axis: { left: number; right: number; top: number; bottom: number };
  /** The first, middle and last day under the plot. */
  labels: { x: number; text: string }[];
}

/** A rounded top for the value axis: 1, 2 or 5 times a power of ten, at least `value`. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value)!;
}

/** One stacked bar per day: each day's `parts` (kind and value) from the bottom up. */
function stackedBars(days: readonly UsageDay[], parts: (day: UsageDay) => { kind: string; value: number }[]): Chart {
  const stacks = days.map(parts);
  const max = niceMax(Math.max(0, ...stacks.map((stack) => stack.reduce((sum, part) => sum + part.value, 0))));
  const bars: Bar[] = [];
  stacks.forEach((stack, index) => {
    let base = PLOT.top + PLOT.height;
    for (const { kind, value } of stack) {
      if (value <= 0) continue;
      const height = (value / max) * PLOT.height;
      base -= height;
      bars.push({ x: round(PLOT.left + index * SLOT + (SLOT - BAR_WIDTH) / 2), y: round(base), width: round(BAR_WIDTH), height: round(height), kind });
    }
  });
  const labelAt = (index: number) => ({ x: round(PLOT.left + index * SLOT + SLOT / 2), text: days[index]!.day.slice(5) });
  return {
    width: PLOT.left + PLOT.width + 8,
    height: PLOT.top + PLOT.height + PLOT.bottom,
    bars,
    max,
    axis: { left: PLOT.left, right: PLOT.left + PLOT.width, top: PLOT.top, bottom: PLOT.top + PLOT.height },
    labels: [0, Math.floor(days.length / 2), days.length - 1].map(labelAt),
  };
}

const round = (value: number) => Math.round(value * 10) / 10;

export function creditsChart(days: readonly UsageDay[]): Chart {
  return stackedBars(days, (day) => [{ kind: 'bar-spent', value: day.spent }]);
}

export function verdictsChart(days: readonly UsageDay[]): Chart {
  return stackedBars(days, (day) => VERDICTS.map((verdict) => ({ kind: `bar-${verdict}`, value: day.verdicts[verdict] })));
}
