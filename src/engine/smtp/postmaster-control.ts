/**
 * The postmaster control (docs/architecture.md "What a reply means"): a permanent refusal at RCPT
 * whose words no reply row reads may be about the address or about us (our IP, our sender, our
 * HELO). RFC 5321 §4.5.1 makes every domain take mail for `postmaster`, so asking for it in the
 * same session tells the two apart: refused too, the refusal is about us (`unknown`,
 * `sender_refused`); taken, the address's refusal stands (`invalid`).
 */
import { outcomeOfReply, type SmtpOutcome } from './outcome.js';
import type { PostmasterAnswer } from './host-habits.js';
import type { ReplyKind } from './reply-rules.js';
import { replyKind, statusOfKind } from './reply-table.js';
import type { SmtpReply } from './reply.js';

/** The one kind of reply the control is asked for: a 5xx no row reads, which the table would call `invalid`. */
export const CONTROLLED_KIND: ReplyKind = 'unreadable-refusal';

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}

export function postmasterAt(domain: string): string {
  return `postmaster@${domain}`;
}

/**
 * What a reply for postmaster teaches: taken (2xx) or refused (a 5xx that does not read as "no
 * such mailbox" or "not served here": such a domain lacks the postmaster RFC 5321 asks for, which
 * says nothing about us); a 4xx or anything else teaches nothing.
 */
export function postmasterAnswerOf(reply: SmtpReply, domain: string): PostmasterAnswer | null {
  if (reply.code >= 200 && reply.code < 300) return { accepted: true, domain, line: reply.line };
  if (reply.code < 500 || reply.code >= 600) return null;
  const kind = replyKind(reply);
  if (kind !== CONTROLLED_KIND && statusOfKind(kind) === 'invalid') return null;
  return { accepted: false, domain, line: reply.line };
}

/**
 * The outcome of an unreadable refusal once the control has spoken: `answer` null keeps the
 * table's reading (not asked, or no conclusive reply). `host` names where an answer learnt for
 * another domain (or in an earlier session) came from.
 */
export function controlledOutcome(
  refusal: SmtpReply,
  answer: PostmasterAnswer | null,
  domain: string,
  host: string,
): { outcome: SmtpOutcome; kind: ReplyKind } {
  const read = outcomeOfReply(refusal, CONTROLLED_KIND);
  if (answer === null) return { outcome: read, kind: CONTROLLED_KIND };
  const asked = answer.domain === domain ? `${postmasterAt(domain)}` : `${postmasterAt(answer.domain)} at ${host}`;
  if (answer.accepted)
    return { outcome: { ...read, reason: `${read.reason}; ${asked} was accepted, so the refusal is about the address` }, kind: CONTROLLED_KIND };
  return {
    outcome: {
      status: 'unknown',
      code: 'sender_refused',
      reason: `refused for the sender, not the address: ${refusal.line}; ${asked} was refused too: ${answer.line}`,
    },
    kind: 'sender-rejected',
  };
}
