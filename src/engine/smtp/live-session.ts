import type { MatchedRule } from '../rules/provider-rules.js';
import { SmtpError } from './errors.js';
import type { HostHabits, PostmasterAnswer, SessionPace } from './host-habits.js';
import { CONTROLLED_KIND, controlledOutcome, domainOf, postmasterAnswerOf, postmasterAt } from './postmaster-control.js';
import { unknownOutcome } from './outcome.js';
import type { ProbeAnswer, ProbeRequest, SessionSlot } from './probe-contract.js';
import { replyKind, type ReplyKind } from './reply-table.js';
import type { SmtpReply } from './reply.js';
import type { SmtpSession, SessionTarget } from './session.js';

// One open session of the prober and the RCPTs asked in it: an address, or the postmaster control.

const SERVICE_CLOSING = 421;

/** An address in a prober's queue. */
export interface Pending extends ProbeRequest {
  drops: number;
  /** Its refusal at a host (by address), asked already, that waits for the postmaster control there (its session had no RCPT left for it). */
  refusal?: { reply: SmtpReply; host: string };
}

/** The postmaster control's verdict on one refusal, or why there is none yet. */
export type Controlled = ProbeAnswer | { unasked: 'no-rcpt-left' } | { dropped: SmtpError; answer: ProbeAnswer };

/** An open session and what it has asked: refusals and RCPTs count per session, whichever domains they were for. */
export interface LiveSession {
  session: SmtpSession;
  pace: SessionPace;
  refusals: number;
  rcpts: number;
  replies: number;
  inTransaction: number;
  /** Domains whose postmaster this session asked already: at most one control RCPT per domain per session. */
  postmasterAsked: Set<string>;
}

/**
 * Asks the host about one address in `live`: its reply, how the reply table reads it, and whether
 * the host slowed down answering. Undefined when the address is not asked now: given up while a
 * new transaction opened, or put back because the host takes fewer recipients per transaction.
 */
export async function askRcpt(
  habits: HostHabits,
  live: LiveSession,
  target: SessionTarget,
  item: Pending,
  putBack: (item: Pending) => void,
): Promise<{ reply: SmtpReply; kind: ReplyKind; slowedDown: boolean } | undefined> {
  // Refused in an earlier session here that had no RCPT left for the control: only the control is asked.
  if (item.refusal?.host === target.address) return { reply: item.refusal.reply, kind: CONTROLLED_KIND, slowedDown: false };
  if (live.inTransaction >= habits.rcptsPerTransaction(target.address)) {
    await newTransaction(live);
    // A new transaction is a round trip or two: the caller may have given the address up meanwhile.
    if (item.cancelled?.()) {
      answerUnasked(item);
      return undefined;
    }
  }
  live.rcpts += 1;
  const asked = performance.now();
  const reply = await live.session.rcpt(item.address);
  const replyMs = performance.now() - asked;
  habits.recordReply(target.address, replyMs);
  const slowedDown = live.pace.slowedDown(replyMs, live.refusals);
  live.replies += 1;
  throwIfClosing(reply);
  live.inTransaction += 1;
  const kind = replyKind(reply);
  if (kind === 'too-many-recipients' && live.inTransaction > 1) {
    putBack(item);
    habits.learnRcptsPerTransaction(target.address, live.inTransaction - 1);
    live.inTransaction = Infinity;
    return undefined;
  }
  if (reply.code >= 400) live.refusals += 1;
  return { reply, kind, slowedDown };
}

/** RSET and MAIL FROM again, when the transaction holds as many recipients as the host takes. */
export async function newTransaction(live: LiveSession): Promise<void> {
  live.inTransaction = 0;
  await live.session.newTransaction();
}

/**
 * The postmaster control for an unreadable refusal of `address` (postmaster-control.ts): the
 * host's answer learnt earlier (any domain, any session), else `postmaster@domain` asked in
 * this session, once per domain, within the session's RCPTs; not where a provider rule says
 * postmaster proves nothing. A session that dies on the question answers with the table's reading.
 * The answer is learnt per egress at the host: a refusal of one egress says nothing of another's.
 */
export async function askControlled(
  habits: HostHabits,
  live: LiveSession,
  target: SessionTarget,
  slot: SessionSlot,
  rule: MatchedRule | undefined,
  address: string,
  refusal: SmtpReply,
): Promise<Controlled> {
  const domain = domainOf(address);
  const read = (answer: PostmasterAnswer | null): ProbeAnswer => controlledOutcome(refusal, answer, domain, target.hostname);
  if (rule?.postmasterProvesSender === false) return read(null);
  const at = `${slot.session.egress ?? 'default'}\n${target.address}`;
  const known = habits.postmasterAnswer(at);
  if (known) return read(known);
  const asking = habits.postmasterAsking(at);
  if (asking) return read(await asking);
  if (live.postmasterAsked.has(domain)) return read(null);
  if (live.rcpts >= (rule?.rcptsPerSession ?? Infinity)) return { unasked: 'no-rcpt-left' };
  live.postmasterAsked.add(domain);
  try {
    return read(await habits.askPostmaster(at, () => askPostmaster(habits, live, target, domain)));
  } catch (error) {
    if (!(error instanceof SmtpError)) throw error;
    return { dropped: error, answer: read(null) };
  }
}

/** `RCPT TO:<postmaster@domain>` in `live`, counted like any RCPT; what its reply teaches, if anything. */
async function askPostmaster(habits: HostHabits, live: LiveSession, target: SessionTarget, domain: string): Promise<PostmasterAnswer | null> {
  if (live.inTransaction >= habits.rcptsPerTransaction(target.address)) await newTransaction(live);
  live.rcpts += 1;
  const reply = await live.session.rcpt(postmasterAt(domain));
  live.replies += 1;
  throwIfClosing(reply);
  live.inTransaction += 1;
  if (reply.code >= 400) live.refusals += 1;
  // "Too many recipients" answers nothing about us: the next RCPT opens a new transaction.
  if (replyKind(reply) === 'too-many-recipients') {
    live.inTransaction = Infinity;
    return null;
  }
  return postmasterAnswerOf(reply, domain);
}

/** 421 closes the session (RFC 5321 §3.8): it is about the session, not the mailbox. */
function throwIfClosing(reply: SmtpReply): void {
  if (reply.code === SERVICE_CLOSING) throw new SmtpError('closed', `the server closed the session: ${reply.line}`, reply);
}

/** An address whose caller no longer wants the answer (its chunk was lost or stopped): never sent to the host. */
export function answerUnasked(item: Pending): void {
  item.answer({ outcome: unknownOutcome('not asked: the caller no longer wants the answer', 'internal_error'), kind: null });
}
