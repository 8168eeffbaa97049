import type { SmtpOutcome } from './outcome.js';
import type { MatchedRule } from '../rules/provider-rules.js';
import type { SmtpObserver } from '../core/types.js';
import type { HostHabits } from './host-habits.js';
import type { ReplyKind } from './reply-table.js';
import type { SessionOptions, SessionTarget } from './session.js';
import type { SessionSharing } from './session-sharing.js';
import type { SmtpProber } from './prober.js';

// What a prober is asked (ProbeRequest), answers (ProbeAnswer) and is given (ProberOptions, SessionSlot).

/** Every egress is benched at a host's provider: its addresses are not asked there (thrown by `takeSlot`). */
export class EgressesBenched extends Error {
  override name = 'EgressesBenched';
  constructor(readonly outcome: SmtpOutcome) {
    super(outcome.reason);
  }
}

export interface ProbeAnswer {
  outcome: SmtpOutcome;
  /** What the RCPT reply meant, or null when there was no reply. */
  kind: ReplyKind | null;
}

export interface ProbeRequest {
  /** The RCPT TO address: `local@ascii-domain`. */
  address: string;
  /** Called exactly once, synchronously inside the session: asking more from here keeps it open. */
  answer(result: ProbeAnswer): void;
  /** True once the caller no longer wants the answer: the address is then answered unasked. */
  cancelled?(): boolean;
}

/** A session's place within the per-host and global limits, at one egress (docs/architecture.md "Egress"). */
export interface SessionSlot {
  /** How the session in this slot is opened: through the slot's egress. */
  session: SessionOptions;
  /**
   * The host refused the slot's egress for reputation (`refusal`, the answer for an address at
   * `domain`): 'elsewhere' when another egress is left to ask the address through, else the
   * address's answer. The bench is for `domain`, whichever domain the slot was taken for.
   */
  refused(refusal: SmtpOutcome, domain: string): Promise<SmtpOutcome | 'elsewhere'>;
  /** Gives the slot back (once). */
  release(): void;
  /** Someone with a better claim waits for this slot (`left` addresses to ask): end the session after the current answer. */
  wanted(left: number): boolean;
  /** Another session could start at this host now without keeping anyone waiting (a slot nobody wants). */
  spare(): boolean;
  /** Calls `listener` once, when a slot at this host is next given back with nobody waiting for it. */
  onSpare(listener: () => void): void;
}

export interface ProberOptions {
  /** The domain whose addresses this prober asks: what a refusal of our egress is kept for. */
  domain: string;
  perHostConcurrency: number;
  /**
   * Waits for a session slot at a host (its own limit, then the global one), for `pending`
   * addresses; throws EgressesBenched when every egress is benched at the host's provider.
   */
  takeSlot(target: SessionTarget, pending: number): Promise<SessionSlot>;
  /** The provider rule of an MX host, if one matches: RCPTs per session, what a 250 proves. */
  ruleOf(hostname: string): MatchedRule | undefined;
  /** What sessions taught about each host: its reply time, the refusals it takes in a session. */
  habits: HostHabits;
  /** Where a session done with this domain finds another domain at the same host, with the same `sharingKey`. */
  sharing: SessionSharing<SmtpProber>;
  /** Whose sessions this domain's may be: one share (user) at one priority. */
  sharingKey: string;
  observer?: SmtpObserver;
}
