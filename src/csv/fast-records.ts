import { createReadStream } from 'node:fs';

/** What `record` answers instead of a position: the rest is not in the bytes yet, or not ours to read. */
const INCOMPLETE = -1;
const GIVE_UP = -2;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
/** Bytes from here on belong to characters beyond ASCII: only decoding tells whether one is a space. */
const BEYOND_ASCII = 0x80;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** csv-parse's `bom` option reads a file starting so as UTF-16 LE (not-text.ts refuses such a list before any read). */
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);
/**
 * A record still unfinished with this much carried over is left to csv-parse (re-reading it at
 * every piece would grow quadratic); checked per piece, so records up to a piece longer get through.
 */
const MAX_CARRY = 1024 * 1024;
/** Pieces the file is read in: larger ones were no faster on the 1M-row list, and raised peak RSS. */
const PIECE_BYTES = 256 * 1024;

/** What the reader gives for each record: only what reading a list's addresses needs. */
type OnColumnRecord = (value: string, blank: boolean, lines: number) => void;

/** Whether `byte` is a character String.prototype.trim removes (the ASCII ones: tab to CR, and space). */
function isAsciiSpace(byte: number): boolean {
  return byte === SPACE || (byte >= 0x09 && byte <= CR);
}

/**
 * csv-parse goes byte by byte through strings; on the 1M-row benchmark list that was 4.8 s of
 * `bulk submit`'s 6 s read, twice the time the service takes to accept the whole list
 * (bench/submit.js). This reader goes through the file's bytes instead, without decoding the
 * file, and decodes one field per record: the email column's. It reads the well-formed CSV nearly
 * every list is: fields plain or quoted (`""` inside a quoted one), lines ending all in LF or all
 * in CRLF. Anything else (a lone CR, a quote inside a plain field or text after a closing quote,
 * which csv-parse's relax_quotes keeps in its own way; an unterminated quote; a record over 1 MiB;
 * a delimiter beyond ASCII) makes it give up, and csv-parse reads the file from the start: it
 * alone decides odd cases and names errors. Where this reader does not give up, each record's
 * column value, blankness and lines spanned are what source.ts makes of csv-parse's records
 * (test/unit/csv-fast-records.test.ts compares them).
 */
export class ColumnScanner {
  private lineEnd: 'lf' | 'crlf' | undefined;
  private carry: Buffer = Buffer.alloc(0);
  private started = false;
  private readonly delimiter: number;
  // The record being read: its column's value, whether a field held anything but spaces, whether
  // one held characters beyond ASCII (which may be spaces), and the lines it spans.
  private value = '';
  private content = false;
  private beyondAscii = false;
  private lines = 1;

  constructor(
    delimiter: string,
    private readonly quoted: boolean,
    private readonly column: number,
    private readonly onRecord: OnColumnRecord,
  ) {
    const code = delimiter.length === 1 ? delimiter.charCodeAt(0) : BEYOND_ASCII;
    // A delimiter that is a quote, a line end or beyond ASCII: never one a list sniffs, so left to csv-parse.
    this.delimiter = code >= BEYOND_ASCII || code === QUOTE || code === LF || code === CR ? -1 : code;
  }

  /** Reads the next piece of the file (the last with `final`); false once the file is not one this reader reads. */
  push(piece: Buffer, final: boolean): boolean {
    if (this.delimiter === -1) return false;
    const bytes = this.carry.length === 0 ? piece : Buffer.concat([this.carry, piece]);
    let at = 0;
    if (!this.started) {
      if (bytes.length < UTF8_BOM.length && !final) {
        this.carry = bytes;
        return true;
      }
      this.started = true;
      if (bytes.subarray(0, UTF16LE_BOM.length).equals(UTF16LE_BOM)) return false;
      if (bytes.subarray(0, UTF8_BOM.length).equals(UTF8_BOM)) at = UTF8_BOM.length;
    }
    while (at < bytes.length) {
      const next = this.record(bytes, at, final);
      if (next === GIVE_UP) return false;
      if (next === INCOMPLETE) break;
      at = next;
    }
    // A copy, so that the carried tail does not keep the whole piece it came from.
    this.carry = Buffer.from(bytes.subarray(at));
    return this.carry.length <= MAX_CARRY;
  }

  /** Reads the record starting at `at`: the position after it, or INCOMPLETE / GIVE_UP. */
  private record(bytes: Buffer, at: number, final: boolean): number {
    this.value = '';
    this.content = false;
    this.beyondAscii = false;
    this.lines = 1;
    const length = bytes.length;
    let field = 0;
    let start = at;
    for (;;) {
      let end: number;
      let after: number;
      if (this.quoted && bytes[start] === QUOTE) {
        const close = this.closingQuote(bytes, start + 1, final);
        if (close < 0) return close;
        end = close;
        after = close + 1;
        if (field === this.column) this.value = bytes.toString('utf8', start + 1, end).replaceAll('""', '"');
        if (after < length && bytes[after] !== this.delimiter && bytes[after] !== LF && bytes[after] !== CR) return GIVE_UP;
      } else {
        end = this.plainEnd(bytes, start);
        if (end === GIVE_UP) return GIVE_UP;
        if (end === length && !final) return INCOMPLETE;
        after = end;
        if (field === this.column) this.value = bytes.toString('utf8', start, end);
      }
      if (after === length) return this.emit(bytes, at, after, after);
      const byte = bytes[after];
      if (byte === this.delimiter) {
        field += 1;
        start = after + 1;
        continue;
      }
      if (byte === LF) return this.endsWith('lf') ? this.emit(bytes, at, after, after + 1) : GIVE_UP;
      if (after + 1 === length && !final) return INCOMPLETE;
      return bytes[after + 1] === LF && this.endsWith('crlf') ? this.emit(bytes, at, after, after + 2) : GIVE_UP;
    }
  }

  /** The end of the plain field at `start`: the delimiter, CR or LF after it, or the end of the bytes. */
  private plainEnd(bytes: Buffer, start: number): number {
    let at = start;
    for (; at < bytes.length; at++) {
      const byte = bytes[at]!;
      if (byte === this.delimiter || byte === LF || byte === CR) break;
      // A quote past a field's start is one of relax_quotes' cases.
      if (byte === QUOTE && this.quoted) return GIVE_UP;
      this.look(byte);
    }
    return at;
  }

  /** The closing quote of the quoted field whose value starts at `from`, or INCOMPLETE / GIVE_UP. */
  private closingQuote(bytes: Buffer, from: number, final: boolean): number {
    for (let at = from; at < bytes.length; at++) {
      const byte = bytes[at]!;
      if (byte !== QUOTE) {
        if (byte === LF) this.lines += 1;
        this.look(byte);
        continue;
      }
      // A quote at the end of the bytes may be the first of a `""`: the next piece tells.
      if (at + 1 === bytes.length && !final) return INCOMPLETE;
      if (bytes[at + 1] !== QUOTE) return at;
      this.content = true;
      at += 1;
    }
    return final ? GIVE_UP : INCOMPLETE;
  }

  /** Notes what a byte of a field's value says about the record being blank. */
  private look(byte: number): void {
    if (byte >= BEYOND_ASCII) this.beyondAscii = true;
    else if (!isAsciiSpace(byte)) this.content = true;
  }

  /** Whether `ending` may end records: the first one decides for the whole file, as csv-parse's detection does. */
  private endsWith(ending: 'lf' | 'crlf'): boolean {
    this.lineEnd ??= ending;
    return this.lineEnd === ending;
  }

  private emit(bytes: Buffer, start: number, end: number, next: number): number {
    this.onRecord(this.value, !this.content && (!this.beyondAscii || this.blankText(bytes, start, end)), this.lines);
    return next;
  }

  /**
   * Whether a record whose values hold nothing but spaces and characters beyond ASCII is blank: are
   * those characters spaces too (a no-break space, say)? Without delimiters and field quotes (an
   * escaped quote counts as content already), the record's text is its values run together.
   */
  private blankText(bytes: Buffer, start: number, end: number): boolean {
    let text = bytes.toString('utf8', start, end).replaceAll(String.fromCharCode(this.delimiter), '');
    if (this.quoted) text = text.replaceAll('"', '');
    return text.trim() === '';
  }
}

/**
 * Calls `onRecord` with every record of the file, as csv-parse's records would give them, and
 * answers true; or answers false as soon as the file holds something only csv-parse should read
 * (the records given so far are then to be forgotten).
 */
export async function scanColumn(
  path: string,
  options: { delimiter: string; quoted: boolean; column: number },
  onRecord: OnColumnRecord,
): Promise<boolean> {
  const scanner = new ColumnScanner(options.delimiter, options.quoted, options.column, onRecord);
  const stream = createReadStream(path, { highWaterMark: PIECE_BYTES });
  try {
    for await (const piece of stream) {
      if (!scanner.push(piece as Buffer, false)) return false;
    }
  } finally {
    stream.destroy();
  }
  return scanner.push(Buffer.alloc(0), true);
}
