import { contentType, decodeText, multipartParts, parseHeaders, type Entity } from './mime.js';

/** What a bounce is read from: its words for people, its delivery-status fields, the returned message's headers. */
export interface BounceParts {
  /** The human-readable text, the returned message cut off. */
  text: string;
  /** The bodies of message/delivery-status parts, decoded. */
  dsn: string[];
  /** The headers of the returned message, when it is attached. */
  original: Map<string, string[]> | null;
  /** Whole messages attached (message/rfc822): a bounce forwarded by hand, or wrapped by a gateway, is one of them. */
  attached: string[];
}

const DSN_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const ORIGINAL_TYPES = new Set(['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global-headers']);
/** The line where a plain-text bounce starts quoting the returned message. */
const ORIGINAL_START = new RegExp(
  [
    String.raw`^[ \t]*[-=*_]{2,}.*\b(original message|copy of|unsent message|returned message|header of the original|headers? (is )?follow|message follows|below this line)`,
    String.raw`^[ \t]*(original message follows|below this line is a copy|unsent message follows)`,
    String.raw`^(Received: from |Return-Path: )`,
  ].join('|'),
  'im',
);

export function bounceParts(message: Entity): BounceParts {
  const parts: BounceParts = { text: '', dsn: [], original: null, attached: [] };
  const texts: string[] = [];
  walk(message, parts, texts, 0);
  parts.text = texts.join('\n');
  return parts;
}

function walk(entity: Entity, parts: BounceParts, texts: string[], depth: number): void {
  const { type } = contentType(entity);
  if (type.startsWith('multipart/') && depth < 8) {
    const children = multipartParts(entity);
    if (children.length > 0) {
      for (const child of children) walk(child, parts, texts, depth + 1);
      return;
    }
  }
  if (DSN_TYPES.has(type)) {
    parts.dsn.push(decodeText(entity));
  } else if (ORIGINAL_TYPES.has(type)) {
    const text = decodeText(entity);
    parts.original ??= parseHeaders(text.split('\n\n')[0] ?? '');
    if (type === 'message/rfc822' || type === 'message/global') parts.attached.push(text);
  } else if (type.startsWith('text/') || type.startsWith('multipart/') || type === '') {
    texts.push(cutOriginal(decodeText(entity)));
  }
}

/** A plain-text bounce's own words, without the returned message quoted after them. */
export function cutOriginal(text: string): string {
  const match = ORIGINAL_START.exec(text);
  return match ? text.slice(0, match.index) : text;
}
