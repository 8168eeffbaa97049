import { evidenceAddress, enhancedStatus, isoTime, makeEvent, type EvidenceEvent, type EvidenceKind } from './event.js';

/**
 * ESP notifications and exports as events: Amazon SES (bounce, delivery and complaint
 * notifications, with or without the SNS envelope), SendGrid's event webhook, Mailgun's events API
 * and Postmark's bounces. The webhook receivers call these too, so a pushed event and an imported
 * one read the same. Each returns one item per recipient: an event, or why none.
 */
export type EspItem = { event: EvidenceEvent } | { why: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** Seconds since 1970 (SendGrid, Mailgun) or a date string (SES, Postmark). */
function timeOf(value: unknown): string | null {
  if (typeof value === 'number') return isoTime(value * 1000);
  return typeof value === 'string' ? isoTime(value) : null;
}

function item(email: unknown, kind: EvidenceKind, at: unknown, source: string, extra: { status?: string; diagnostic?: string } = {}): EspItem {
  const address = typeof email === 'string' ? evidenceAddress(email) : null;
  if (address === null) return { why: `no recipient address (${JSON.stringify(email ?? null)})` };
  const time = timeOf(at);
  if (time === null) return { why: `no time for ${address}` };
  const status = extra.status ?? enhancedStatus(extra.diagnostic);
  return { event: makeEvent({ email: address, kind, at: time, status, diagnostic: extra.diagnostic, source }) };
}

/** One SES notification (or event-publishing record), its SNS envelope taken off when it has one. */
export function sesNotification(json: unknown, source = 'ses'): EspItem[] {
  let body: unknown = json;
  if (isObject(json) && json.Type === 'Notification' && typeof json.Message === 'string') {
    try {
      body = JSON.parse(json.Message);
    } catch {
      return [{ why: 'an SNS notification whose Message is not JSON' }];
    }
  }
  if (!isObject(body)) return [{ why: 'not an SES notification' }];
  const type = text(body.notificationType ?? body.eventType);
  if (type === 'Bounce' && isObject(body.bounce)) {
    const bounce = body.bounce;
    // SES's Transient bounces are soft; they say nothing final about the mailbox.
    const kind: EvidenceKind = bounce.bounceType === 'Transient' ? 'deferral' : 'bounce';
    return list(bounce.bouncedRecipients).map((recipient) =>
      item(recipient.emailAddress, kind, bounce.timestamp, source, { status: text(recipient.status), diagnostic: text(recipient.diagnosticCode) }),
    );
  }
  if (type === 'Delivery' && isObject(body.delivery)) {
    const delivery = body.delivery;
    return list(delivery.recipients, true).map((email) => item(email, 'delivery', delivery.timestamp, source));
  }
  if (type === 'Complaint' && isObject(body.complaint)) {
    const complaint = body.complaint;
    return list(complaint.complainedRecipients).map((recipient) => item(recipient.emailAddress, 'complaint', complaint.timestamp, source));
  }
  if (type === 'DeliveryDelay' && isObject(body.deliveryDelay)) {
    const delay = body.deliveryDelay;
    return list(delay.delayedRecipients).map((recipient) =>
      item(recipient.emailAddress, 'deferral', delay.timestamp, source, { status: text(recipient.status), diagnostic: text(recipient.diagnosticCode) }),
    );
  }
  return [{ why: `an SES notification of type ${JSON.stringify(type ?? null)}, not a bounce, delivery or complaint` }];
}

function list(value: unknown): Json[];
function list(value: unknown, strings: true): unknown[];
function list(value: unknown, strings = false): unknown[] {
  if (!Array.isArray(value)) return [];
  return strings ? value : value.filter(isObject);
}

const SENDGRID_KINDS: Record<string, EvidenceKind> = {
  bounce: 'bounce',
  blocked: 'bounce',
  dropped: 'bounce',
  delivered: 'delivery',
  deferred: 'deferral',
  spamreport: 'complaint',
};

/** SendGrid's event webhook: an array of events (one object is taken as a batch of one). */
export function sendgridEvents(json: unknown, source = 'sendgrid'): EspItem[] {
  return (Array.isArray(json) ? json : [json]).map((entry) => {
    if (!isObject(entry)) return { why: 'not a SendGrid event' };
    const kind = SENDGRID_KINDS[text(entry.event) ?? ''];
    if (kind === undefined) return { why: `a SendGrid ${JSON.stringify(entry.event ?? null)} event, not a bounce, delivery or complaint` };
    const words = text(entry.reason) ?? text(entry.response);
    return item(entry.email, kind, entry.timestamp, source, {
      status: enhancedStatus(text(entry.status)),
      diagnostic: kind === 'delivery' ? undefined : words,
    });
  });
}

/** Mailgun's events (`{items: […]}` from the events API, or one webhook's `event-data`). */
export function mailgunEvents(json: unknown, source = 'mailgun'): EspItem[] {
  const items = Array.isArray(json)
    ? json
    : isObject(json) && Array.isArray(json.items)
      ? json.items
      : isObject(json) && isObject(json['event-data'])
        ? [json['event-data']]
        : [json];
  return items.map((entry) => {
    if (!isObject(entry)) return { why: 'not a Mailgun event' };
    const event = text(entry.event);
    const status = isObject(entry['delivery-status']) ? entry['delivery-status'] : {};
    if (event === 'delivered') return item(entry.recipient, 'delivery', entry.timestamp, source);
    if (event === 'complained') return item(entry.recipient, 'complaint', entry.timestamp, source);
    if (event !== 'failed') return { why: `a Mailgun ${JSON.stringify(event ?? null)} event, not a bounce, delivery or complaint` };
    const kind: EvidenceKind = entry.severity === 'temporary' ? 'deferral' : 'bounce';
    const code = text(status.code);
    const words = text(status.message) || text(status.description) || text(entry.reason);
    const diagnostic = code !== undefined && words !== undefined && !words.startsWith(code) ? `${code} ${words}` : words;
    return item(entry.recipient, kind, entry.timestamp, source, { status: enhancedStatus(text(status['enhanced-code'])), diagnostic });
  });
}

/** Postmark's bounce webhook or bounces API (`{Bounces: […]}`), and its delivery and spam-complaint webhooks. */
export function postmarkBounces(json: unknown, source = 'postmark'): EspItem[] {
  const entries = isObject(json) && Array.isArray(json.Bounces) ? json.Bounces : Array.isArray(json) ? json : [json];
  return entries.map((entry) => {
    if (!isObject(entry)) return { why: 'not a Postmark record' };
    if (entry.RecordType === 'Delivery') return item(entry.Recipient, 'delivery', entry.DeliveredAt, source);
    const type = text(entry.Type) ?? '';
    if (entry.RecordType === 'SpamComplaint' || type === 'SpamComplaint') return item(entry.Email, 'complaint', entry.BouncedAt, source);
    const kind = POSTMARK_KINDS[type];
    if (kind === undefined) return { why: `a Postmark ${JSON.stringify(type)} record, not a bounce` };
    return item(entry.Email, kind, entry.BouncedAt, source, { diagnostic: text(entry.Details) || text(entry.Description) });
  });
}

/** Postmark's bounce types that are about delivering to the address (its auto-responders and (un)subscribes are not). */
const POSTMARK_KINDS: Record<string, EvidenceKind> = {
  HardBounce: 'bounce',
  SoftBounce: 'bounce',
  BadEmailAddress: 'bounce',
  DnsError: 'bounce',
  Blocked: 'bounce',
  ManuallyDeactivated: 'bounce',
  Transient: 'deferral',
};

/** Which ESP wrote a JSON value, by its fields; null when none did. */
export function espOf(json: unknown): ((json: unknown, source?: string) => EspItem[]) | null {
  const first = Array.isArray(json) ? json[0] : json;
  if (!isObject(first)) return null;
  if ((first.Type === 'Notification' && typeof first.Message === 'string') || 'notificationType' in first || ('eventType' in first && 'mail' in first))
    return sesNotification;
  if (Array.isArray(first.Bounces) || 'RecordType' in first || ('BouncedAt' in first && 'Email' in first)) return postmarkBounces;
  if (Array.isArray(first.items) || isObject(first['event-data']) || ('delivery-status' in first && 'recipient' in first)) return mailgunEvents;
  if ('sg_event_id' in first || ('event' in first && 'email' in first && 'timestamp' in first)) return sendgridEvents;
  return null;
}
