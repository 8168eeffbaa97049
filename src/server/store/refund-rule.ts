import { VERIFIER_CONDITIONS } from '../../engine/core/reason-codes.js';

/**
 * Whose token goes back (docs/architecture.md "The result cache and refunds"), written once for a
 * single verification and for bulk work: nobody pays for our own network (VERIFIER_CONDITIONS: our
 * port 25, resolver or proxy), and with `refundUnknown` (`--refund-unknown`) nobody pays for an unknown.
 */
export function refundable(result: { result: string; reasonCode: string }, refundUnknown = false): boolean {
  // Read back from the store, a reason code is a string: one that is no condition is not ours.
  return (VERIFIER_CONDITIONS as ReadonlySet<string>).has(result.reasonCode) || (refundUnknown && result.result === 'unknown');
}
