import { checkCell, type Checks, type VerificationResult } from '../engine/core/types.js';
import { csvCellSafe } from '../text/sanitize.js';

/** Every check, in the interface's order (docs/api.md "Resources"); a Record so that a new check cannot be forgotten. */
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

/**
 * The columns appended to every row of a CSV output: `suggestion`, empty when there is none, and
 * `evidence` last, empty unless the account's own evidence decided the verdict.
 */
export const RESULT_COLUMNS: readonly string[] = ['result', 'reason', 'reason_code', ...CHECK_NAMES, 'suggestion', 'evidence'];

/** The evidence cell: `bounce 2026-10-01 (postfix)`, the kind, the day and the source. */
const evidenceCell = ({ evidence }: VerificationResult): string => (evidence ? `${evidence.kind} ${evidence.at.slice(0, 10)} (${evidence.source})` : '');

/**
 * A key per shape of a result's check cells: the booleans as bits, those not established as
 * bits above them, any other value (the SMTP status) as JSON after its index, whose quoting keeps
 * one value from running into the next.
 */
function shapeKey(result: VerificationResult): number | string {
  let bits = 0;
  let others = '';
  for (let index = 0; index < CHECK_NAMES.length; index += 1) {
    const name = CHECK_NAMES[index]!;
    const value = result.checks[name];
    if (value === true) bits |= 1 << index;
    else if (value !== false) others += `${index}${JSON.stringify(value)}`;
    else if (checkCell(result, name) === '') bits |= 1 << (index + CHECK_NAMES.length);
  }
  return others === '' ? bits : `${bits}${others}`;
}

/**
 * Encodes a result as the CSV text of its cells under RESULT_COLUMNS (no line end), each cell
 * through `encode`. The checks take a handful of shapes across a whole list, so each shape's text
 * (and those not established, left blank) is built once and then looked up: this runs for every row of a merge-back. The reason, the
 * suggestion and the evidence, the free text among them, follow the OWASP rule against formulas (csvCellSafe).
 */
export function resultCellsEncoder(encode: (field: string) => string, delimiter: string): (result: VerificationResult) => string {
  const checksByShape = new Map<number | string, string>();
  const checksText = (result: VerificationResult): string => {
    const key = shapeKey(result);
    let text = checksByShape.get(key);
    if (text === undefined) {
      text = CHECK_NAMES.map((name) => encode(checkCell(result, name))).join(delimiter);
      checksByShape.set(key, text);
    }
    return text;
  };
  // A result stored before reason codes existed has none: its cell stays empty.
  return (result) =>
    `${encode(result.result)}${delimiter}${encode(csvCellSafe(result.reason))}${delimiter}${encode(result.reasonCode ?? '')}${delimiter}${checksText(result)}${delimiter}${encode(csvCellSafe(result.suggestion ?? ''))}${delimiter}${encode(csvCellSafe(evidenceCell(result)))}`;
}
