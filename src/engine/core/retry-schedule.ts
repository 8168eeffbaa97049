import type { ReasonCode } from './reason-codes.js';
import type { VerificationResult } from './types.js';

/**
 * The reason codes of a temporary answer (docs/architecture.md "Settling later"): greylisting,
 * throttling, a deferral or fault of the server, a timeout or refused connection at the customer's
 * host, every egress benched there. The same question asked later may get another answer. The
 * verifier's own blindness (port 25, resolver, proxy) is not among them: the machine's network is
 * not the customer's host, and asking it again on a schedule teaches nothing.
 */
const TEMPORARY_CODES: ReadonlySet<string> = new Set<ReasonCode>([
  'greylisted',
  'rate_limited',
  'temporary_failure',
  'server_error',
  'timeout',
  'connection_failed',
  'egress_benched',
]);

export function isTemporary(result: Pick<VerificationResult, 'result' | 'reasonCode'>): boolean {
  return result.result === 'unknown' && TEMPORARY_CODES.has(result.reasonCode);
}

/** What the store keeps of an address's tries so far. */
export interface Tries {
  /** Temporary answers it had before this one. */
  attempts: number;
  /** When its first temporary answer came (epoch ms); null before it had one. */
  firstAnsweredAt: number | null;
}

/**
 * When to ask again an address whose answer, now, is temporary (epoch ms), or null when it settles
 * now with that answer: after the schedule's last try, or when the next would come after `settleBy`
 * (the job's `settleWithin`). Each due time is spread over a tenth of the gap since the try before,
 * by `spread` in [0, 1): a host that answers 421 to all its addresses gets them back over a while,
 * not all at the minute mark.
 */
export function nextAttemptAt(schedule: readonly number[], tries: Tries, now: number, settleBy: number | null, spread: number): number | null {
  const step = schedule[tries.attempts];
  if (step === undefined) return null;
  const gap = step - (schedule[tries.attempts - 1] ?? 0);
  const due = Math.max(now, (tries.firstAnsweredAt ?? now) + step + Math.floor((spread * gap) / 10));
  return settleBy !== null && due > settleBy ? null : due;
}
