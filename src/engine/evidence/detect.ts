import { logFlavour } from './logs.js';

/** The formats evidence is read from, told by content (docs/evidence.md "Formats"). */
export type EvidenceFormat = 'message' | 'mbox' | 'json' | 'csv' | 'log';

const CONTENT_TYPES: Record<string, EvidenceFormat> = {
  'message/rfc822': 'message',
  'application/mbox': 'mbox',
  'application/json': 'json',
  'application/x-ndjson': 'json',
  'text/csv': 'csv',
};

/** The format a Content-Type names, when it names one of ours. */
export function formatOfContentType(contentType: string | undefined): EvidenceFormat | null {
  return CONTENT_TYPES[(contentType ?? '').split(';')[0]!.trim().toLowerCase()] ?? null;
}

/** A header field's line: a name of letters, digits and dashes, then a colon. */
const HEADER_LINE = /^[A-Za-z][A-Za-z0-9-]*:/;

/** The format of a stream by its first bytes, or null when it is none of ours. */
export function detectFormat(head: string): EvidenceFormat | null {
  const text = head.replace(/^(\xef\xbb\xbf)/, '');
  if (text.startsWith('From ')) return 'mbox';
  if (/^\s*[[{]/.test(text)) return 'json';
  const firstLines = text.split('\n', 20).map((line) => line.replace(/\r$/, ''));
  if (firstLines.slice(0, 20).some((line) => logFlavour(line) !== null)) return 'log';
  if (HEADER_LINE.test(firstLines[0] ?? '')) return 'message';
  if (/\b(email|address|recipient)\b/i.test(firstLines[0] ?? '') && /[,;\t]/.test(firstLines[0] ?? '')) return 'csv';
  return null;
}
