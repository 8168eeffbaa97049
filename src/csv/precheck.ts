// Only the format check: the rest of the engine (DNS, SMTP, lists) stays unloaded on the client.
import { checkFormat } from '../engine/checks/format.js';
import { BEYOND_FORMAT, NOTHING_CHECKED, type VerificationResult } from '../engine/core/types.js';

export const NO_ADDRESS = 'no address in this row';

/** Why an address fails the engine's syntax check, or undefined when it passes. */
export function precheckFailure(address: string): string | undefined {
  const format = checkFormat(address);
  return format.ok ? undefined : format.reason;
}

/**
 * The verdict for a row that is never sent to the service: no address, or one that fails the
 * syntax pre-check. Such an address is `invalid` with nothing else checked, as the engine itself
 * would answer. Undefined when the address passes, since then only the service can answer.
 */
export function localResult(address: string): VerificationResult | undefined {
  const reason = address === '' ? NO_ADDRESS : precheckFailure(address);
  if (reason === undefined) return undefined;
  return {
    email: address,
    result: 'invalid',
    reason,
    reasonCode: 'syntax',
    checks: NOTHING_CHECKED,
    notEstablished: [...BEYOND_FORMAT],
  };
}
