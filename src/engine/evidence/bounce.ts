import { evidenceAddress, isoTime, makeEvent, type EvidenceEvent, type EvidenceKind } from './event.js';
import { DSN_FIELD, dsnRecipients, type DsnRecipient } from './dsn.js';
import { contentType, decodeWords, header, parseEntity, type Entity } from './mime.js';
import { bounceParts, type BounceParts } from './bounce-parts.js';
import { replyInText, textRecipients } from './bounce-text.js';

/** What one message gave: its events, or why it gave none. */
export type MessageReading = { events: EvidenceEvent[] } | { why: string };

export interface MessageContext {
  source: string;
  /** When the message carries no date of its own (an mbox's "From " line, a file's time, now). */
  fallbackAt: string;
}

/** A raw message (binary string, any line ends) read as a bounce, delivery report or delay warning. */
export function readMessage(raw: string, context: MessageContext, depth = 0): MessageReading {
  const message = parseEntity(raw.replace(/\r\n?/g, '\n'));
  if (message.headers.size === 0) return { why: 'not a mail message (no header fields)' };
  const parts = bounceParts(message);
  const subject = decodeWords(header(message, 'subject') ?? '');
  const bounceLike = looksLikeBounce(message, subject, parts.text);
  // Bounces are auto-replies too (RFC 3834 has DSNs say Auto-Submitted): only one that is no bounce is skipped as such.
  if (isAutoReply(message, subject) && parts.dsn.length === 0 && !bounceLike) return { why: 'an auto-reply, not a bounce' };
  const at = isoTime(header(message, 'date') ?? '') ?? context.fallbackAt;
  const dsnText = parts.dsn.length > 0 ? parts.dsn.join('\n\n') : DSN_FIELD.test(parts.text) ? parts.text.slice(DSN_FIELD.exec(parts.text)!.index) : '';
  const fromDsn = dsnRecipients(dsnText);
  const fallbackKind: EvidenceKind = isDelayWarning(subject, parts.text) ? 'deferral' : 'bounce';
  const events =
    fromDsn.length > 0 && fromDsn.some((record) => recipientOf(record) !== null)
      ? dsnEvents(fromDsn, parts, { ...context, fallbackAt: at }, fallbackKind)
      : bounceLike
        ? textEvents(message, parts, { ...context, fallbackAt: at }, fallbackKind)
        : [];
  if (events.length > 0) return { events };
  // A bounce forwarded as an attachment (by a person, or a gateway's report wrapping it).
  for (const attached of depth < 2 ? parts.attached : []) {
    const inner = readMessage(attached, { ...context, fallbackAt: at }, depth + 1);
    if ('events' in inner) return inner;
  }
  return { why: bounceLike ? 'a bounce naming no recipient it could be read for' : 'not a bounce or delivery report' };
}

function dsnEvents(records: DsnRecipient[], parts: BounceParts, context: MessageContext, fallbackKind: EvidenceKind): EvidenceEvent[] {
  const seen = new Set<string>();
  const events: EvidenceEvent[] = [];
  const texts = textRecipients(parts.text, new Set());
  for (const record of records) {
    const email = recipientOf(record);
    if (email === null || seen.has(email.toLowerCase())) continue;
    seen.add(email.toLowerCase());
    const kind = kindOfAction(record.action, record.status, fallbackKind);
    const status = /^[245]\.\d{1,3}\.\d{1,3}/.exec(record.status ?? '')?.[0];
    let diagnostic = record.diagnostic;
    if (diagnostic === undefined || diagnostic.replace(/^[\w-]+\s*;/, '').trim() === '') {
      const words = texts.find((text) => text.email.toLowerCase() === email.toLowerCase());
      diagnostic = words ? replyInText(words.segment).diagnostic : undefined;
    }
    const at = isoTime(record.lastAttempt ?? '') ?? context.fallbackAt;
    events.push(makeEvent({ email, kind, at, status, diagnostic, source: context.source }));
  }
  return events;
}

function textEvents(message: Entity, parts: BounceParts, context: MessageContext, fallbackKind: EvidenceKind): EvidenceEvent[] {
  const failed = (message.headers.get('x-failed-recipients') ?? []).flatMap((value) => value.split(',')).map(evidenceAddress);
  // The bounce's To is taken for a recipient only when its words name no other address.
  const others = textRecipients(parts.text, senderAddresses(message, parts, true));
  const found = others.length > 0 ? others : textRecipients(parts.text, senderAddresses(message, parts, false));
  const named = failed.filter((email): email is string => email !== null);
  const recipients =
    named.length > 0 ? named.map((email) => found.find((hit) => hit.email.toLowerCase() === email.toLowerCase()) ?? { email, segment: parts.text }) : found;
  return recipients.map(({ email, segment }) => {
    let reply = replyInText(segment);
    // A bounce that names its one recipient on a line of its own says what happened elsewhere in its words.
    if (!reply.coded && recipients.length === 1) {
      const whole = replyInText(parts.text);
      if (whole.coded || reply.diagnostic.replace(email, '').replace(/[^\p{L}\p{N}]/gu, '').length < 10) reply = whole;
    }
    return makeEvent({ email, kind: fallbackKind, at: context.fallbackAt, status: reply.status, diagnostic: reply.diagnostic, source: context.source });
  });
}

/** A DSN block's address: Final-Recipient, else Original-Recipient (a pipe or an LMTP route is no address). */
function recipientOf(record: DsnRecipient): string | null {
  return evidenceAddress(addressPart(record.finalRecipient)) ?? evidenceAddress(addressPart(record.originalRecipient));
}

function addressPart(field: string | undefined): string {
  return (field ?? '').replace(/^[\w-]+\s*;\s*/, '').trim();
}

function kindOfAction(action: string | undefined, status: string | undefined, fallback: EvidenceKind): EvidenceKind {
  const word = (action ?? '').trim().toLowerCase();
  if (word.startsWith('delayed')) return 'deferral';
  if (/^(delivered|relayed|expanded)/.test(word)) return 'delivery';
  if (word.startsWith('failed')) return 'bounce';
  if (status?.trim().startsWith('2')) return 'delivery';
  return fallback;
}

/**
 * Addresses that are the sender's, never a recipient's: the bounce's own From and Return-Path and the
 * returned message's From, Sender and Return-Path; with `withTo`, the bounce's To and Cc too (the
 * sender, most often, unless it wrote to itself).
 */
function senderAddresses(message: Entity, parts: BounceParts, withTo: boolean): Set<string> {
  const values = [
    ...['from', 'return-path', 'reply-to', ...(withTo ? ['to', 'cc'] : [])].flatMap((name) => message.headers.get(name) ?? []),
    ...['from', 'sender', 'return-path', 'reply-to'].flatMap((name) => parts.original?.get(name) ?? []),
  ];
  const addresses = new Set<string>();
  for (const value of values) for (const match of value.matchAll(/[^\s@<>()",;:]+@[^\s@<>()",;:]+/g)) addresses.add(match[0].toLowerCase());
  return addresses;
}

const AUTO_REPLY_SUBJECT = /^\s*(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesenheit|absence|vacation|r[ée]ponse automatique)/i;

function isAutoReply(message: Entity, subject: string): boolean {
  if (/^auto-replied/i.test(header(message, 'auto-submitted') ?? '')) return true;
  if (message.headers.has('x-autoreply') || message.headers.has('x-autorespond') || /vacation/i.test(header(message, 'x-apple-action') ?? '')) return true;
  if (/^auto_reply$/i.test(header(message, 'precedence') ?? '')) return true;
  return AUTO_REPLY_SUBJECT.test(subject) && contentType(message).type !== 'multipart/report';
}

const BOUNCE_SUBJECT =
  /undeliver|undelivered|delivery|deliver|failure|failed|returned|bounce|non.?delivery|rejected|unable|warning|delay|not (be )?delivered|mail error|error|unzustellbar|non recapitabile|non remis|配信|未達|エラー/i;

/** A bounce's own words, whatever its subject and sender say. */
const BOUNCE_TEXT =
  /(could ?n[o']t|cannot|can't|was not|wasn't) be(en)? delivered|undeliverable|delivery (has )?failed|permanent (error|failure)|returned mail/i;

function looksLikeBounce(message: Entity, subject: string, text: string): boolean {
  if (message.headers.has('x-failed-recipients') || contentType(message).type === 'multipart/report') return true;
  if (/mailer-daemon|post_?master|mail delivery|mail-daemon|mmdf|smtp/i.test(header(message, 'from') ?? '')) return true;
  return BOUNCE_SUBJECT.test(subject) || BOUNCE_TEXT.test(text);
}

const DELAY_SUBJECT = /delay|warning|still being retried|not yet (been )?delivered|will retry|temporar/i;
const DELAY_TEXT =
  /(will (continue|keep) (trying|to try)|will be retried|this is only a warning|no need to resend|delayed for more than|still trying to deliver|has not yet been delivered)/i;

function isDelayWarning(subject: string, text: string): boolean {
  return DELAY_SUBJECT.test(subject) || DELAY_TEXT.test(text);
}
