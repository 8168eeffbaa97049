import { isReasonCode, type ReasonCode } from './core/reason-codes.js';
import { VERDICTS, type Verdict, type VerificationResult } from './core/types.js';

/** What `--only` and `--fail-on` name: a verdict, or a reason code for a finer choice. */
export type ResultSelector = Verdict | ReasonCode;

export function isResultSelector(value: string): value is ResultSelector {
  return (VERDICTS as readonly string[]).includes(value) || isReasonCode(value);
}

/** The selectors `result` answers to: its verdict, and its reason code (`catch_all` is both). */
export function selectorsOf(result: VerificationResult): ResultSelector[] {
  // Results stored before reason codes existed have only a verdict.
  return result.reasonCode === undefined ? [result.result] : [result.result, result.reasonCode];
}

export function isSelected(selectors: readonly ResultSelector[], result: VerificationResult): boolean {
  return selectorsOf(result).some((selector) => selectors.includes(selector));
}
