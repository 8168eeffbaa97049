import { createReadStream } from 'node:fs';

/** What `record` answers instead of a position: the rest is not in `text` yet, or not ours to read. */
const INCOMPLETE = -1;
const GIVE_UP = -2;
const QUOTE = '"';
/** A record longer than this is left to csv-parse (and re-joining it per piece would grow quadratic). */
const MAX_CARRY = 1024 * 1024;
/** Pieces the file is read in: larger ones were no faster on the 1M-row list, and raised peak RSS. */
const PIECE_BYTES = 256 * 1024;

/** The next `what` in `text` at or after `from`; Infinity when there is none. */
function nextOf(text: string, what: string, from: number): number {
  const at = text.indexOf(what, from);
  return at === -1 ? Infinity : at;
}

/**
 * csv-parse goes byte by byte; on the 1M-row benchmark list that was 4.8 s of `bulk submit`'s
 * 6 s read, twice the time the service takes to accept the whole list (bench/submit.js). This
 * reader finds fields with indexOf instead, for the well-formed CSV nearly every list is: fields
 * plain or quoted (`""` inside a quoted one), lines ending all in LF or all in CRLF. Anything else
 * (a lone CR, a quote inside a plain field or text after a closing quote, which csv-parse's
 * relax_quotes keeps in its own way; an unterminated quote; a record over 1 MiB) makes it give up,
 * and csv-parse reads the file from the start: it alone decides odd cases and names errors. Where
 * this reader does not give up, its records are csv-parse's with source.ts's options
 * (test/unit/csv-fast-records.test.ts compares them). Fields are views into the piece read: see `unshared`.
 */
export class RecordScanner {
  private lineEnd: '\n' | '\r\n' | undefined;
  private carry = '';
  private started = false;
  // Next quote, CR and delimiter at or after the position being read, found once per piece rather
  // than per field: a delimiter rare in the text (a plain list's never appears) would otherwise be
  // searched for to the end of the piece at every line.
  private quoteAt = -1;
  private crAt = -1;
  private delimiterAt = -1;

  constructor(
    private readonly delimiter: string,
    private readonly quoted: boolean,
    private readonly onRecord: (record: string[]) => void,
  ) {}

  /** Reads the next piece of the file (the last with `final`); false once the file is not one this reader reads. */
  push(piece: string, final: boolean): boolean {
    let text = this.carry + piece;
    if (!this.started) {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    this.quoteAt = -1;
    this.crAt = -1;
    this.delimiterAt = -1;
    let at = 0;
    while (at < text.length) {
      const next = this.record(text, at, final);
      if (next === GIVE_UP) return false;
      if (next === INCOMPLETE) break;
      at = next;
    }
    this.carry = text.slice(at);
    return this.carry.length <= MAX_CARRY;
  }

  private nextQuote(text: string, from: number): number {
    if (!this.quoted) return Infinity;
    if (this.quoteAt < from) this.quoteAt = nextOf(text, QUOTE, from);
    return this.quoteAt;
  }

  private nextCr(text: string, from: number): number {
    if (this.crAt < from) this.crAt = nextOf(text, '\r', from);
    return this.crAt;
  }

  private nextDelimiter(text: string, from: number): number {
    if (this.delimiterAt < from) this.delimiterAt = nextOf(text, this.delimiter, from);
    return this.delimiterAt;
  }

  /** Whether `ending` may end records: the first one decides for the whole file, as csv-parse's detection does. */
  private endsWith(ending: '\n' | '\r\n'): boolean {
    this.lineEnd ??= ending;
    return this.lineEnd === ending;
  }

  /** Reads the record starting at `at`: the position after it, or INCOMPLETE / GIVE_UP. */
  private record(text: string, at: number, final: boolean): number {
    const fields: string[] = [];
    let field = at;
    // Found once per line rather than per field; again only after a quoted field ran past it.
    let newline = -1;
    for (;;) {
      if (this.nextQuote(text, field) === field) {
        let value = '';
        let from = field + 1;
        let close: number;
        for (;;) {
          close = text.indexOf(QUOTE, from);
          if (close === -1 || close + 1 === text.length) {
            if (!final) return INCOMPLETE;
            if (close === -1) return GIVE_UP;
          }
          if (text[close + 1] !== QUOTE) break;
          value += text.slice(from, close + 1);
          from = close + 2;
        }
        fields.push(value + text.slice(from, close));
        const after = close + 1;
        if (after === text.length) return this.emit(fields, after);
        if (text[after] === this.delimiter) {
          field = after + 1;
          continue;
        }
        if (text[after] === '\n') return this.endsWith('\n') ? this.emit(fields, after + 1) : GIVE_UP;
        if (text[after] !== '\r') return GIVE_UP;
        if (after + 1 === text.length && !final) return INCOMPLETE;
        return text[after + 1] === '\n' && this.endsWith('\r\n') ? this.emit(fields, after + 2) : GIVE_UP;
      }
      if (newline < field) newline = nextOf(text, '\n', field);
      const delimiter = this.nextDelimiter(text, field);
      const end = Math.min(newline, delimiter);
      if (end === Infinity && !final) return INCOMPLETE;
      const stop = Math.min(end, text.length);
      // A quote past a field's start is one of relax_quotes' cases.
      if (this.nextQuote(text, field) < stop) return GIVE_UP;
      const cr = this.nextCr(text, field);
      const crlf = end === newline && newline !== Infinity && cr === newline - 1;
      if (cr < stop && !crlf) return GIVE_UP;
      if (delimiter < newline) {
        fields.push(text.slice(field, end));
        field = end + 1;
        continue;
      }
      fields.push(text.slice(field, crlf ? cr : stop));
      if (end === Infinity) return this.emit(fields, stop);
      return this.endsWith(crlf ? '\r\n' : '\n') ? this.emit(fields, end + 1) : GIVE_UP;
    }
  }

  private emit(fields: string[], next: number): number {
    this.onRecord(fields);
    return next;
  }
}

/**
 * A copy of `field` that does not share memory with the piece it was read from. V8 makes a slice
 * of a long string a view into it, so one address kept from each piece would keep every piece
 * (the whole file: 168 MiB of heap left after reading the 1M-row list instead of 97 MiB). Whoever
 * keeps a field past its row keeps this. Concatenation builds a flat string of the field alone; the
 * slice is then a view into that.
 */
export function unshared(field: string): string {
  return (` ${field}`).slice(1);
}

/**
 * Calls `onRecord` with every record of the file, as csv-parse would give them, and answers true;
 * or answers false as soon as the file holds something only csv-parse should read (the records
 * given so far are then to be forgotten).
 */
export async function scanRecords(path: string, options: { delimiter: string; quoted: boolean }, onRecord: (record: string[]) => void): Promise<boolean> {
  const scanner = new RecordScanner(options.delimiter, options.quoted, onRecord);
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: PIECE_BYTES });
  try {
    for await (const piece of stream) {
      if (!scanner.push(piece as string, false)) return false;
    }
  } finally {
    stream.destroy();
  }
  return scanner.push('', true);
}
