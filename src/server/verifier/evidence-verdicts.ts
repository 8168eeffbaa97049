import type { EvidenceEvent } from '../../engine/evidence/event.js';
import { meaningOf } from '../../engine/evidence/meaning.js';
import type { ReasonCode } from '../../engine/core/reason-codes.js';
import { BEYOND_FORMAT, type DecidingEvidence, type VerificationResult } from '../../engine/core/types.js';

/** What an account's events within the window say about one address (events newest first). */
export interface EvidenceFinding {
  /** The newest event that says something about the mailbox: a missing-mailbox bounce, or a delivery. */
  decisive?: EvidenceEvent;
  /** Every event within the window, newest first, for `explain`. */
  events: readonly EvidenceEvent[];
}

export function findingOf(events: readonly EvidenceEvent[]): EvidenceFinding {
  const decisive = events.find((event) => ['missing-mailbox', 'delivered'].includes(meaningOf(event)));
  return { decisive, events };
}

/** A probe that says nothing of the mailbox: after a delivery, the delivery decides. */
const PROVES_NOTHING: ReadonlySet<ReasonCode> = new Set(['catch_all', 'accept_unproven', 'not_verified']);
/** A probe that found the mailbox gone: it wins over an older delivery. */
const MAILBOX_GONE: ReadonlySet<ReasonCode> = new Set(['mailbox_not_found', 'mailbox_disabled']);

const day = (at: string): string => at.slice(0, 10);
const deciding = (event: EvidenceEvent): DecidingEvidence => ({ kind: event.kind as DecidingEvidence['kind'], at: event.at, source: event.source });
const serverWords = (event: EvidenceEvent): string => [event.status, event.diagnostic].filter(Boolean).join(' ') || 'no words given';

/** The bounce's reason: the date, the source and the server's words. */
const bouncedReason = (bounce: EvidenceEvent): string =>
  `a message to this address bounced on ${day(bounce.at)} (${bounce.source}) as a missing mailbox: ${serverWords(bounce)}`;

/** A bounce that decides without a probe: the checks beyond the format were not looked at. */
export function bouncedWithoutProbe(email: string, bounce: EvidenceEvent): VerificationResult {
  return {
    email,
    result: 'invalid',
    checks: {
      format: true,
      domainExists: false,
      hasMx: false,
      domainReachable: false,
      smtpStatus: 'invalid',
      isDisposable: false,
      isRole: false,
      isBlacklisted: false,
      isKnownProvider: false,
      isCatchAll: false,
    },
    notEstablished: [...BEYOND_FORMAT],
    reason: `${bouncedReason(bounce)}; no mail host was asked`,
    reasonCode: 'bounced',
    evidence: deciding(bounce),
  };
}

/**
 * The verdict once the probe answered, for an address with a decisive event (docs/evidence.md "How
 * evidence decides a verdict"): a probe that settles the mailbox wins over older evidence (a 250 at
 * a domain that is not catch-all over a bounce, a missing mailbox over a delivery), and the reason
 * says the evidence was older; otherwise a bounce makes it `invalid`, and a delivery makes `valid`
 * what the probe could not prove.
 */
export function decidedAfterProbe(probe: VerificationResult, decisive: EvidenceEvent): VerificationResult {
  const when = `${day(decisive.at)} (${decisive.source})`;
  if (decisive.kind === 'bounce') {
    if (probe.result === 'valid' && probe.reasonCode === 'accepted') return { ...probe, reason: `${probe.reason}; a bounce on ${when} is older` };
    // A probe that finds the address invalid now agrees, in its own words.
    if (probe.result === 'invalid') return probe;
    return {
      ...probe,
      result: 'invalid',
      checks: { ...probe.checks, smtpStatus: 'invalid' },
      reason: `${bouncedReason(decisive)}; the probe now: ${probe.reason}`,
      reasonCode: 'bounced',
      evidence: deciding(decisive),
    };
  }
  if (MAILBOX_GONE.has(probe.reasonCode)) return { ...probe, reason: `${probe.reason}; a delivery on ${when} is older` };
  if (!PROVES_NOTHING.has(probe.reasonCode)) return probe;
  return {
    ...probe,
    result: 'valid',
    reason: `a message to this address was delivered on ${when}; the probe proved nothing: ${probe.reason}`,
    reasonCode: 'delivered',
    evidence: deciding(decisive),
  };
}

/** What `explain` says of the account's events: each, and what it changed. */
export function evidenceNotes(finding: EvidenceFinding): string[] {
  return finding.events.map((event) => {
    const role = event === finding.decisive ? 'decisive' : meaningOf(event) === 'soft' ? 'soft: changes nothing' : 'changes nothing';
    const words = event.status || event.diagnostic ? `: ${serverWords(event)}` : '';
    return `evidence: ${event.kind} on ${event.at} (${event.source})${words} [${role}]`;
  });
}
