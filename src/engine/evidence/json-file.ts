import { skipped, type EvidenceRead } from './event.js';
import { espOf, sesNotification, type EspItem } from './esp.js';
import { eventFromJson } from './json-events.js';
import { lines, utf8, type Chunks } from './stream.js';

/** Largest JSON document read whole; NDJSON (one value a line) streams at any size. */
const DOCUMENT_LIMIT = 64 * 1024 * 1024;

/** A JSON file: one document (an object or an array), or NDJSON, of ESP records or of our own events. */
export async function* jsonEvents(file: string, input: Chunks, source: string | undefined): AsyncGenerator<EvidenceRead> {
  const held: string[] = [];
  let size = 0;
  let ndjson: boolean | null = null;
  // NDJSON's first value waits for a second: a file of one line is a document, its places "event N".
  let pending: { line: string; number: number } | null = null;
  let many = false;
  for await (const { line, number } of lines(input)) {
    if (ndjson === null && line.trim() !== '') ndjson = parses(line) && /^\s*\{/.test(line);
    if (ndjson === true) {
      if (line.trim() === '') continue;
      if (pending !== null) {
        yield* valueEvents(file, `line ${pending.number}`, pending.line, source);
        pending = null;
        many = true;
      }
      if (many) yield* valueEvents(file, `line ${number}`, line, source);
      else pending = { line, number };
      continue;
    }
    size += line.length + 1;
    if (size > DOCUMENT_LIMIT) {
      yield skipped(file, 'file', `a JSON document larger than ${DOCUMENT_LIMIT / 1024 / 1024} MB (write it as NDJSON, one value a line)`);
      return;
    }
    held.push(line);
  }
  if (ndjson !== true) yield* valueEvents(file, 'file', held.join('\n'), source);
  else if (pending !== null) yield* valueEvents(file, 'file', pending.line, source);
}

function parses(line: string): boolean {
  try {
    JSON.parse(utf8(line));
    return true;
  } catch {
    return false;
  }
}

function* valueEvents(file: string, where: string, binary: string, source: string | undefined): Generator<EvidenceRead> {
  let value: unknown;
  try {
    value = JSON.parse(utf8(binary));
  } catch (error) {
    yield skipped(file, where, `not JSON: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const own = ownEvents(value);
  if (own !== null) {
    yield* own.map((entry, index) => {
      const event = eventFromJson(entry, source ?? 'api');
      return typeof event === 'string' ? skipped(file, eventPlace(where, index, own.length), event) : { event };
    });
    return;
  }
  const convert = espOf(value);
  if (convert === null) {
    yield skipped(file, where, 'JSON of no format evidence is read from (SES, SendGrid, Mailgun, Postmark, or {email, kind, at} events)');
    return;
  }
  // An SES notification is one object: an array of them is read one by one.
  const values = convert === sesNotification && Array.isArray(value) ? value : [value];
  for (const [index, one] of values.entries()) {
    const items: EspItem[] = source === undefined ? convert(one) : convert(one, source);
    for (const [position, item] of items.entries()) {
      if ('event' in item) yield { event: item.event };
      else yield skipped(file, eventPlace(where, values.length > 1 ? index : position, Math.max(values.length, items.length)), item.why);
    }
  }
}

/** Our own events: `{events: […]}`, an array of `{email, kind, at}`, or one such object. */
function ownEvents(value: unknown): unknown[] | null {
  const isOwn = (entry: unknown) => typeof entry === 'object' && entry !== null && 'email' in entry && 'kind' in entry;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray((value as { events?: unknown }).events)) {
    return (value as { events: unknown[] }).events;
  }
  if (Array.isArray(value) && value.length > 0 && isOwn(value[0])) return value;
  return isOwn(value) ? [value] : null;
}

/** "event 3" inside a document; the line itself for NDJSON with one value. */
function eventPlace(where: string, index: number, count: number): string {
  if (where === 'file') return `event ${index + 1}`;
  return count > 1 ? `${where}, event ${index + 1}` : where;
}
