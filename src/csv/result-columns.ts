import type { Checks, VerificationResult } from '../engine/types.js';

/** Every check, in the interface's order (§2.3); a Record so that a new check cannot be forgotten. */
const CHECK_ORDER: Record<keyof Checks, number> = {
  format: 0,
  domainExists: 1,
  hasMx: 2,
  domainReachable: 3,
  smtpStatus: 4,
  isDisposable: 5,
  isRole: 6,
  isBlacklisted: 7,
  isKnownProvider: 8,
  isCatchAll: 9,
};
const CHECK_NAMES = (Object.keys(CHECK_ORDER) as (keyof Checks)[]).sort((a, b) => CHECK_ORDER[a] - CHECK_ORDER[b]);

/** The columns appended to every row of a CSV output. */
export const RESULT_COLUMNS: readonly string[] = ['result', 'reason', ...CHECK_NAMES];

/** A result as the cells under RESULT_COLUMNS. */
export function resultCells(result: VerificationResult): string[] {
  return [result.result, result.reason, ...CHECK_NAMES.map((name) => String(result.checks[name]))];
}
