import type { ChalkInstance } from 'chalk';
import { REASON_CODE_NAMES } from '../../engine/core/reason-codes.js';
import { isResultSelector, type ResultSelector } from '../../engine/result-filter.js';
import { VERDICTS, type Verdict, type VerificationResult } from '../../engine/core/types.js';
import { terminalSafe } from '../../text/sanitize.js';
import { UsageError } from './errors.js';

const VERDICT_COLOR: Record<Verdict, keyof ChalkInstance & ('green' | 'red' | 'yellow' | 'cyan' | 'gray')> = {
  valid: 'green',
  invalid: 'red',
  risky: 'yellow',
  catch_all: 'cyan',
  unknown: 'gray',
};

/** One human line per result: the verdict (coloured, padded), the address, the reason (an SMTP server's words, made harmless), and a suggestion if any. */
export function humanLine(result: VerificationResult, color: ChalkInstance): string {
  const paint = color[VERDICT_COLOR[result.result]];
  const suggestion = result.suggestion === undefined ? '' : `  did you mean ${color.bold(terminalSafe(result.suggestion))}?`;
  return `${paint(result.result.padEnd(9))} ${terminalSafe(result.email)}  ${color.dim(terminalSafe(result.reason))}${suggestion}`;
}

/** "45s", "3m 20s", "2h 5m": a wait or an ETA, to the second. */
export function duration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** "in 45s (at 14:03:10)": when a wait ends, as a span and on the local clock. */
export function until(ms: number, now = Date.now()): string {
  return `in ${duration(ms)} (at ${new Date(now + ms).toLocaleTimeString('en-GB')})`;
}

/** "1 row", "120,000 rows": counts in messages, grouped for reading, the noun agreeing. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

/** "20 requests per second", "1 request per 60 seconds": an account's rate limit. */
export function ratePhrase(limit: number, windowSeconds: number): string {
  return `${counted(limit, 'request')} per ${windowSeconds === 1 ? 'second' : counted(windowSeconds, 'second')}`;
}

/**
 * Parses a `--fail-on` / `--only` list such as "invalid,unknown" or "valid,mailbox_full": verdicts
 * and reason codes, in any case (`Valid` is `valid`).
 */
export function parseSelectorList(raw: string, flag: string): ResultSelector[] {
  const items = raw
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
  const wrong = items.filter((item) => !isResultSelector(item));
  if (items.length === 0 || wrong.length > 0) {
    const unknown = wrong.length > 0 ? `"${wrong[0]}" is neither` : 'it names none';
    throw new UsageError(
      `${flag} takes a comma list of verdicts (${VERDICTS.join(', ')}) or reason codes; ${unknown}`,
      `the reason codes: ${REASON_CODE_NAMES.join(', ')}`,
    );
  }
  return items as ResultSelector[];
}
