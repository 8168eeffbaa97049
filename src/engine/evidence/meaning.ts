import type { SmtpReply } from '../smtp/reply.js';
import { replyKind, type ReplyKind } from '../smtp/reply-table.js';
import type { EvidenceEvent } from './event.js';

/**
 * What one event says about its address (docs/evidence.md "How a bounce is read"). A bounce is read
 * by the same reply table as a probe's RCPT answer, so a full mailbox or a block of the sender is
 * never taken for a missing mailbox.
 */
export type EvidenceMeaning = 'missing-mailbox' | 'delivered' | 'soft' | 'not-about-address';

/** The reply kinds that say the mailbox (or its domain) is not there: a verdict `invalid`. */
const MISSING: ReadonlySet<ReplyKind> = new Set(['no-such-mailbox', 'mailbox-disabled', 'no-such-domain']);
/** The reply kinds about the sending side (its address, IP, rate, session), not the recipient. */
const ABOUT_SENDER: ReadonlySet<ReplyKind> = new Set(['blocked', 'sender-rejected', 'rate-limited', 'too-many-recipients', 'server-error', 'rejected']);

export function meaningOf(event: EvidenceEvent): EvidenceMeaning {
  if (event.kind === 'delivery') return 'delivered';
  if (event.kind !== 'bounce') return 'soft';
  // Refused before any recipient was named (the greeting, HELO, MAIL FROM): about the sender.
  if (SENDER_STAGE.test(event.diagnostic ?? '')) return 'not-about-address';
  const kind = bounceKind(event);
  if (MISSING.has(kind)) return 'missing-mailbox';
  // A relay refusal in a bounce may be any hop's (the sender's own smarthost, most often); a host
  // that says it takes no mail at all for the domain is the recipient's.
  if (kind === 'relay-denied') return /\brelay/i.test(event.diagnostic ?? '') ? 'soft' : 'missing-mailbox';
  return ABOUT_SENDER.has(kind) ? 'not-about-address' : 'soft';
}

/** The stage of a refusal, as MTAs report it ("in reply to MAIL FROM command", "after initial connection"). */
const SENDER_STAGE = /\b(?:in reply to|after)\s+(?:the\s+)?(?:MAIL FROM|initial connection|connect|HELO|EHLO)\b/i;

/** How the reply table reads a bounce's words and status. */
export function bounceKind(event: EvidenceEvent): ReplyKind {
  return replyKind(bounceReply(event));
}

/** A reply code at the start, maybe followed by "-" or ":" (Yahoo's "550: 5.2.2 …"). */
const LEADING_CODE = /^([245]\d\d)(?:[ -]|:\s*|$)/;
/** A reply code inside the words, where a reader kept the text around it ("host x said: 550 …"). */
const INNER_CODE = /(?:^|[\s:;(>"'[])([45][0-5]\d)(?:[ -](?=[#\d<A-Za-z])|:\s)/;
const ENHANCED = /^#?([245]\.\d{1,3}\.\d{1,3})\b/;
/** Codes repeated inside a reply flattened from several lines ("… 550-5.1.1 more words"). */
const REPEATED_CODES = /\s[245]\d\d[ -](?:[245]\.\d{1,3}\.\d{1,3}\s)?/g;

/** A bounce's status and words as the SMTP reply the table reads. */
export function bounceReply(event: Pick<EvidenceEvent, 'status' | 'diagnostic'>): SmtpReply {
  // "smtp; 550 …", "X-Postfix; …": the diagnostic type says nothing the words do not.
  let text = (event.diagnostic ?? '').replace(/^[\w-]+\s*;\s*/, '').trim();
  let code: number | undefined;
  const leading = LEADING_CODE.exec(text);
  if (leading) {
    code = Number(leading[1]);
    text = text.slice(leading[0].length).trim();
  } else {
    const inner = INNER_CODE.exec(text);
    if (inner) code = Number(inner[1]);
  }
  let enhanced = ENHANCED.exec(text)?.[1] ?? null;
  if (enhanced !== null) text = text.replace(ENHANCED, '').trim();
  enhanced ??= event.status ?? null;
  code ??= codeOfStatus(enhanced);
  text = text.replace(REPEATED_CODES, ' ').trim();
  const line = [String(code), enhanced, text].filter((part) => part !== null && part !== '').join(' ');
  return { code, enhanced, text, lines: [text], line };
}

/** A bounce with no reply code: its status's class says permanent or not; without one, a bounce is permanent. */
function codeOfStatus(status: string | null): number {
  if (status?.startsWith('4')) return 450;
  if (status?.startsWith('2')) return 250;
  return 550;
}
