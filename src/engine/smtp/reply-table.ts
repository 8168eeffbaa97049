import type { ReasonCode } from '../core/reason-codes.js';
import type { SmtpStatus } from '../core/types.js';
import type { SmtpReply } from './reply.js';
import { REPLY_RULES, type ReplyKind, type ReplyRule } from './reply-rules.js';

export { REPLY_RULES, type ReplyKind, type ReplyRule } from './reply-rules.js';

/** What each kind of reply makes of the mailbox, and how a result's `reason` says it. */
const MEANINGS: Record<ReplyKind, { status: SmtpStatus; code: ReasonCode; words: string }> = {
  accepted: { status: 'valid', code: 'accepted', words: "accepted by the recipient's server" },
  'not-verified': { status: 'unknown', code: 'not_verified', words: 'the server takes mail without verifying the address' },
  'no-such-mailbox': { status: 'invalid', code: 'mailbox_not_found', words: 'mailbox does not exist' },
  'mailbox-disabled': { status: 'invalid', code: 'mailbox_disabled', words: 'mailbox disabled' },
  'relay-denied': { status: 'invalid', code: 'not_served_here', words: 'relay refused for this domain' },
  'mailbox-full': { status: 'unknown', code: 'mailbox_full', words: 'mailbox full' },
  'rate-limited': { status: 'unknown', code: 'rate_limited', words: "rate-limited by the recipient's server" },
  greylisted: { status: 'unknown', code: 'greylisted', words: 'greylisted' },
  temporary: { status: 'unknown', code: 'temporary_failure', words: "temporary failure at the recipient's server" },
  blocked: { status: 'unknown', code: 'ip_blocked', words: 'our IP is blocked' },
  policy: { status: 'unknown', code: 'policy_refused', words: "refused by the recipient's policy" },
  'sender-rejected': { status: 'unknown', code: 'sender_refused', words: 'our sender address was rejected' },
  'too-many-recipients': { status: 'unknown', code: 'rate_limited', words: 'too many recipients in one transaction' },
  'no-such-domain': { status: 'invalid', code: 'domain_not_found', words: 'the server does not know the domain' },
  'server-error': { status: 'unknown', code: 'server_error', words: "error at the recipient's server" },
  'unreadable-refusal': { status: 'invalid', code: 'unreadable_refusal', words: 'refused permanently, no cause given (most often: not served there)' },
  rejected: { status: 'unknown', code: 'server_error', words: 'an answer that is no refusal class' },
};

function matches(rule: ReplyRule, reply: SmtpReply): boolean {
  if (rule.code !== undefined && !rule.code.test(String(reply.code))) return false;
  if (rule.enhanced !== undefined && (reply.enhanced === null || !rule.enhanced.test(reply.enhanced))) return false;
  return rule.text === undefined || rule.text.test(reply.text);
}

/** The row that decides a reply: the first that matches. */
export function ruleOf(reply: SmtpReply): ReplyRule | undefined {
  return REPLY_RULES.find((rule) => matches(rule, reply));
}

/** The kind of a reply; one no row knows (a 1xx or 3xx to RCPT) is `rejected`. */
export function replyKind(reply: SmtpReply): ReplyKind {
  return ruleOf(reply)?.kind ?? 'rejected';
}

/** `smtpStatus`: valid, invalid or unknown, by what the reply means. */
export function statusOfKind(kind: ReplyKind): SmtpStatus {
  return MEANINGS[kind].status;
}

/** The result's `reasonCode` for a kind of reply. */
export function codeOfKind(kind: ReplyKind): ReasonCode {
  return MEANINGS[kind].code;
}

/** What a kind of reply says happened, in words: the start of a result's `reason`. */
export function wordsOfKind(kind: ReplyKind): string {
  return MEANINGS[kind].words;
}

/** A result's `reason` for a reply: what happened, in words, then the reply line as sent. */
export function describeReply(reply: SmtpReply, kind: ReplyKind = replyKind(reply)): string {
  return `${wordsOfKind(kind)}: ${reply.line}`;
}
