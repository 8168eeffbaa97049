/**
 * Evidence: what the sender's own mail says about an address (docs/evidence.md). One event is one
 * bounce, delivery, complaint or delay warning about one recipient, whatever format it was read from.
 */

export type EvidenceKind = 'bounce' | 'delivery' | 'complaint' | 'deferral';

export const EVIDENCE_KINDS: readonly EvidenceKind[] = ['bounce', 'delivery', 'complaint', 'deferral'];

export interface EvidenceEvent {
  /** Lower-cased domain; the local part as written (trimmed, no angle brackets). */
  email: string;
  kind: EvidenceKind;
  /** ISO 8601, UTC. */
  at: string;
  /** RFC 3463 enhanced status code ("5.1.1") when known. */
  status?: string;
  /** The remote server's words (Diagnostic-Code, SMTP reply) when known. */
  diagnostic?: string;
  /** Where it came from: 'dsn', 'postfix', 'exim', 'sendmail', 'ses', 'sendgrid', 'mailgun', 'postmark', 'csv', 'api', or a user's label. */
  source: string;
}

/** Input that could not be read, named by file and place ("line 12", "message 3", "event 4"). */
export interface EvidenceSkip {
  file: string;
  where: string;
  why: string;
}

export type EvidenceRead = { event: EvidenceEvent } | { skip: EvidenceSkip };

/** Longest diagnostic kept: a reply with a whole transcript pasted in says nothing more after this. */
const DIAGNOSTIC_LIMIT = 1000;
/** An address as bounces quote it: `user@domain`, maybe inside `<…>` or after `rfc822;`. */
const ADDRESS = /^[^\s@<>()",;]+@[^\s@<>()",;]+\.[^\s@<>()",;.]+$/;

/** The address an event is about, or null when the text is no address: `<User@Example.COM>` → `User@example.com`. */
export function evidenceAddress(raw: string): string | null {
  const trimmed = raw
    .trim()
    .replace(/^rfc822\s*;\s*/i, '')
    .replace(/^<(.*)>$/, '$1')
    .trim()
    .replace(/\.$/, '');
  if (!ADDRESS.test(trimmed)) return null;
  const at = trimmed.lastIndexOf('@');
  return `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}

/** A time as ISO 8601 UTC, or null when it is no time. */
export function isoTime(value: Date | string | number): string | null {
  const date = value instanceof Date ? value : typeof value === 'number' ? new Date(value) : new Date(value.trim());
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** A diagnostic on one line, spaces folded, bounded: the server's words as an event keeps them. */
export function cleanDiagnostic(text: string | undefined | null): string | undefined {
  if (text == null) return undefined;
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded === '' ? undefined : folded.slice(0, DIAGNOSTIC_LIMIT);
}

/** An RFC 3463 status ("5.1.1") from a field or a reply, or undefined. */
export function enhancedStatus(text: string | undefined | null): string | undefined {
  return /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(text ?? '')?.[1];
}

/** An event with its optional fields only when known. */
export function makeEvent(fields: {
  email: string;
  kind: EvidenceKind;
  at: string;
  status?: string | undefined;
  diagnostic?: string | undefined;
  source: string;
}): EvidenceEvent {
  const event: EvidenceEvent = { email: fields.email, kind: fields.kind, at: fields.at, source: fields.source };
  if (fields.status !== undefined) event.status = fields.status;
  const diagnostic = cleanDiagnostic(fields.diagnostic);
  if (diagnostic !== undefined) event.diagnostic = diagnostic;
  return event;
}

/** A skip as the readers yield it. */
export function skipped(file: string, where: string, why: string): { skip: EvidenceSkip } {
  return { skip: { file, where, why } };
}
