import { isResultSelector, selectorsOf, type ResultSelector } from '../../engine/result-filter.js';
import type { VerificationResult } from '../../engine/core/types.js';
import { ShareExceededError, UsageError, VerdictMatchedError } from './errors.js';
import { counted } from './format.js';

/**
 * `--fail-on` of the bulk commands (docs/cli.md "A gate for cron and CI"). Each value is a comma
 * list whose items are a verdict or reason code alone (exit 3 when any result has it, as `verify
 * --fail-on`) or `selector=share` (exit 10 when more than that share of the addresses has it).
 */
export interface FailOn {
  /** Selectors that fail the run when any result answers to them. */
  any: ResultSelector[];
  shares: ShareGate[];
}

export interface ShareGate {
  selector: ResultSelector;
  /** 0 to 1: the run fails when strictly more than this share of the addresses answers to `selector`. */
  share: number;
  /** The item as typed (`invalid=5%`), for the message. */
  given: string;
}

export const NO_FAIL_ON: FailOn = { any: [], shares: [] };

const SHARE = /^(\d+(?:\.\d+)?|\.\d+)(%?)$/;

function shareOf(raw: string, item: string): number {
  const match = SHARE.exec(raw);
  const value = match ? Number(match[1]) / (match[2] === '%' ? 100 : 1) : Number.NaN;
  if (!(value >= 0 && value <= 1)) {
    throw new UsageError(`--fail-on: "${item}" needs a share from 0 to 1 or 0% to 100% after the =`, 'e.g. --fail-on invalid=5% or --fail-on unknown=0.2');
  }
  return value;
}

function selectorOf(raw: string, item: string): ResultSelector {
  const selector = raw.trim().toLowerCase();
  if (!isResultSelector(selector)) {
    throw new UsageError(
      `--fail-on: "${item}" names no verdict or reason code`,
      'verdicts: valid, invalid, risky, catch_all, unknown (`mailverify help exit-codes`)',
    );
  }
  return selector;
}

/** Every `--fail-on` value given (the flag is repeatable), checked; a bad one is a UsageError naming the flag. */
export function parseFailOn(values: readonly string[]): FailOn {
  const failOn: FailOn = { any: [], shares: [] };
  for (const value of values) {
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    if (items.length === 0) throw new UsageError('--fail-on: names no verdict', 'e.g. --fail-on invalid=5% or --fail-on invalid,unknown');
    for (const item of items) {
      const at = item.indexOf('=');
      if (at < 0) failOn.any.push(selectorOf(item, item));
      else failOn.shares.push({ selector: selectorOf(item.slice(0, at), item), share: shareOf(item.slice(at + 1).trim(), item), given: item });
    }
  }
  return failOn;
}

/** A share as a percentage with enough decimals to tell it from `limit` (7.2%, but 5.04% against 5%). */
function percent(share: number, limit: number): string {
  for (let digits = 1; digits < 6; digits += 1) {
    const shown = Number((share * 100).toFixed(digits));
    if (shown > limit * 100) return `${shown}%`;
  }
  return `${share * 100}%`;
}

/** What a gate found: the lines naming each share exceeded, and the selectors met of `any`. */
export interface GateOutcome {
  exceeded: string[];
  matched: ResultSelector[];
}

/** Counts the results (one per address) against the gates. */
export function judge(results: Iterable<VerificationResult>, failOn: FailOn): GateOutcome {
  let total = 0;
  const counts = new Map<ResultSelector, number>();
  for (const result of results) {
    total += 1;
    for (const selector of new Set(selectorsOf(result))) counts.set(selector, (counts.get(selector) ?? 0) + 1);
  }
  const exceeded = failOn.shares.flatMap(({ selector, share, given }) => {
    const found = (counts.get(selector) ?? 0) / Math.max(total, 1);
    if (total === 0 || found <= share) return [];
    return [`${selector} is ${percent(found, share)} of ${counted(total, 'address', 'addresses')}, above --fail-on ${given}`];
  });
  return { exceeded, matched: failOn.any.filter((selector) => (counts.get(selector) ?? 0) > 0) };
}

/**
 * Called after every output is written: exit 10 when a share is exceeded (it wins over 3, being
 * the finer gate), else 3 when a listed verdict occurred, else nothing.
 */
export function enforceFailOn(results: Iterable<VerificationResult>, failOn: FailOn): void {
  if (failOn.any.length === 0 && failOn.shares.length === 0) return;
  const { exceeded, matched } = judge(results, failOn);
  if (exceeded.length > 0) throw new ShareExceededError(exceeded);
  if (matched.length > 0) throw new VerdictMatchedError(matched);
}
