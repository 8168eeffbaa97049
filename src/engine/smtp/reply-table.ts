import type { SmtpStatus } from '../types.js';
import type { SmtpReply } from './reply.js';

/** What a reply to `RCPT TO` tells us about the mailbox (or about us). */
export type ReplyKind =
  | 'accepted'
  | 'no-such-mailbox'
  | 'mailbox-disabled'
  /** The mailbox exists but is full: mail would bounce now, maybe not next week. */
  | 'mailbox-full'
  /** Greylisting, rate limits, "try again later": asked again after the greylist delay. */
  | 'temporary'
  /** The server refuses us (DNSBL, reverse DNS, reputation, policy), not the mailbox. */
  | 'blocked'
  /** Our envelope sender was refused (Postfix reports it at RCPT time). */
  | 'sender-rejected'
  /** The server does not take mail for this domain. */
  | 'relay-denied'
  /** The transaction is full: start a new one and ask again. */
  | 'too-many-recipients'
  /** A refusal we cannot read as "no such mailbox": no proof that the address is bad. */
  | 'rejected';

interface ReplyRule {
  kind: ReplyKind;
  /** Reply code class: 2 (2xx), 4 (4xx) or 5 (5xx); any when absent. */
  codeClass?: 2 | 4 | 5;
  /** Must match the RFC 3463 enhanced code when given (a reply without one does not match). */
  enhanced?: RegExp;
  /** Must match the reply text when given. */
  text?: RegExp;
  /** Real reply lines of this row, as servers send them; test/unit/smtp-reply.test.ts replays each. */
  examples: readonly string[];
}

/**
 * The RCPT reply → meaning table. The first matching row wins, so the rows that tell who is
 * refused (us, or the mailbox) come before the generic ones (any 5.1.x, any 4xx).
 */
export const REPLY_TABLE: readonly ReplyRule[] = [
  { kind: 'accepted', codeClass: 2, examples: ['250 2.1.5 Ok', '250 Accepted', '251 2.1.5 User not local; will forward'] },
  { kind: 'too-many-recipients', enhanced: /^[45]\.5\.3$/, examples: ['452 4.5.3 Error: too many recipients'] },
  { kind: 'too-many-recipients', text: /too many recipients/i, examples: ['452 Too many recipients received this hour'] },
  {
    kind: 'sender-rejected',
    text: /sender address rejected/i,
    examples: ['450 4.1.8 <verify@probe.example>: Sender address rejected: Domain not found'],
  },
  { kind: 'sender-rejected', enhanced: /^[45]\.1\.[78]$/, examples: ['553 5.1.8 Sender domain does not exist'] },
  {
    // Exchange Online's directory-based edge blocking: the recipient is not in the directory.
    kind: 'no-such-mailbox',
    codeClass: 5,
    enhanced: /^5\.4\.1$/,
    text: /recipient address rejected: access denied/i,
    examples: ['550 5.4.1 Recipient address rejected: Access denied. For more information see https://aka.ms/EXOSmtpErrors'],
  },
  {
    kind: 'relay-denied',
    text: /relay(ing)? (access )?(denied|not permitted)|not permitted to relay|allowed rcpthosts/i,
    examples: [
      '554 5.7.1 <someone@example.com>: Relay access denied',
      "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)",
    ],
  },
  {
    // Before "blocked": greylisters often say 4.7.1, which is not a block.
    kind: 'temporary',
    codeClass: 4,
    text: /gr[ae]y-?list|try again later|come back later|please retry|temporarily deferred/i,
    examples: [
      '450 4.2.0 <someone@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.com.html',
      '451 4.7.1 Greylisting in action, please come back later',
      '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints',
    ],
  },
  {
    kind: 'blocked',
    text: /spamhaus|spamcop|barracuda|blocked|block ?list|black ?list|deny ?list|client host rejected|reverse (dns|hostname|lookup)|\brdns\b|\bptr\b|not authori[sz]ed to send|banned sending ip|reputation|listed (on|in|at)\b/i,
    examples: [
      '554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org',
      '450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.1]',
      '550 5.7.1 Client host rejected: cannot find your hostname, [192.0.2.1]',
      "550 5.7.1 [192.0.2.1] The IP you're using to send mail is not authorized to send email directly to our servers.",
      '550 5.7.606 Access denied, banned sending IP [192.0.2.1].',
    ],
  },
  {
    // Any other 5.7.x is a security or policy refusal aimed at us, never proof about the mailbox.
    kind: 'blocked',
    codeClass: 5,
    enhanced: /^5\.7\.\d+$/,
    examples: ["550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy."],
  },
  {
    kind: 'mailbox-full',
    enhanced: /^[45]\.2\.2$/,
    examples: ['552 5.2.2 <someone@example.com>: Mailbox full', '452 4.2.2 The email account that you tried to reach is over quota.'],
  },
  {
    kind: 'mailbox-full',
    text: /over quota|quota exceeded|mailbox (is )?full|insufficient storage/i,
    examples: ['552 Requested mail action aborted: exceeded storage allocation, mailbox full'],
  },
  {
    kind: 'mailbox-disabled',
    codeClass: 5,
    enhanced: /^5\.2\.1$/,
    examples: ['550 5.2.1 The email account that you tried to reach is disabled.'],
  },
  {
    kind: 'mailbox-disabled',
    codeClass: 5,
    text: /(mailbox|account) (is )?(disabled|inactive|suspended|deactivated)/i,
    examples: [
      '554 delivery error: dd Sorry your message to someone@yahoo.com cannot be delivered. This mailbox is disabled (554.30). - mta1.mail.gq1.yahoo.com',
    ],
  },
  {
    kind: 'no-such-mailbox',
    codeClass: 5,
    enhanced: /^5\.1\.\d+$/,
    examples: [
      '550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in local recipient table',
      '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
    ],
  },
  {
    kind: 'no-such-mailbox',
    codeClass: 5,
    text: /mailbox unavailable|user unknown|unknown user|no such (user|mailbox|recipient)|no mailbox|mailbox not found|user not found|unknown recipient|invalid (recipient|mailbox)|does ?n[o']t (exist|have an? .*account)|unrouteable address|recipient (not found|unknown)/i,
    examples: [
      '550 5.5.0 Requested action not taken: mailbox unavailable',
      '550 Requested action not taken: mailbox unavailable',
      '550 No Such User Here',
      '511 sorry, no mailbox here by that name (#5.1.1)',
      "554 delivery error: dd This user doesn't have a yahoo.com account (someone@yahoo.com) [0] - mta1.mail.gq1.yahoo.com",
      '550 Unrouteable address',
      '550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550',
    ],
  },
  {
    kind: 'temporary',
    codeClass: 4,
    examples: [
      '451 4.3.0 Temporary lookup failure',
      '452 4.3.1 Insufficient system storage',
    ],
  },
  { kind: 'rejected', codeClass: 5, examples: ['550 Message rejected', '554 Transaction failed'] },
];

/** The label put in front of the reply line in a result's `reason` when the reply does not decide. */
const KIND_LABELS: Record<ReplyKind, string> = {
  accepted: 'accepted',
  'no-such-mailbox': 'no such mailbox',
  'mailbox-disabled': 'mailbox disabled',
  'mailbox-full': 'mailbox full',
  temporary: 'greylisted',
  blocked: 'blocked',
  'sender-rejected': 'our sender address was rejected',
  'relay-denied': 'the server does not take mail for this domain',
  'too-many-recipients': 'too many recipients',
  rejected: 'rejected',
};

const STATUS_OF_KIND: Partial<Record<ReplyKind, SmtpStatus>> = {
  accepted: 'valid',
  'no-such-mailbox': 'invalid',
  'mailbox-disabled': 'invalid',
};

function matches(rule: ReplyRule, reply: SmtpReply): boolean {
  if (rule.codeClass !== undefined && Math.floor(reply.code / 100) !== rule.codeClass) return false;
  if (rule.enhanced !== undefined && (reply.enhanced === null || !rule.enhanced.test(reply.enhanced))) return false;
  return rule.text === undefined || rule.text.test(reply.text);
}

/** The row that decides a reply: the first that matches. */
export function ruleOf(reply: SmtpReply): ReplyRule | undefined {
  return REPLY_TABLE.find((rule) => matches(rule, reply));
}

/** The kind of a reply; one no row knows (a 1xx or 3xx to RCPT) is `rejected`. */
export function replyKind(reply: SmtpReply): ReplyKind {
  return ruleOf(reply)?.kind ?? 'rejected';
}

/** `smtpStatus`: 2xx is valid, "no such / disabled mailbox" invalid, everything else unknown. */
export function statusOfKind(kind: ReplyKind): SmtpStatus {
  return STATUS_OF_KIND[kind] ?? 'unknown';
}

/** A result's `reason` for a reply: the reply line, labelled with why when it does not decide. */
export function describeReply(reply: SmtpReply, kind: ReplyKind = replyKind(reply)): string {
  return statusOfKind(kind) === 'unknown' ? `${KIND_LABELS[kind]}: ${reply.line}` : reply.line;
}
