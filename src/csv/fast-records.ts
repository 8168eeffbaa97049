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
export const PIECE_BYTES = 256 * 1024;

/** Where csv-parse takes over from this reader: the first byte it left, and the line end settled before it (csv-parse's own detection would have settled the same). */
export interface Takeover {
  offset: number;
  recordEnd: '\n' | '\r\n' | undefined;
}

/**
 * The record being given, beyond its column: what the merge-back needs to copy a row out. Valid
 * only during the call that hands it over.
 */
export interface ScannedRecord {
  /** Fields in the record. */
  readonly fieldCount: number;
  /** Whether every field is written as the merge-back writes one: quoted only when it must be. */
  readonly canonical: boolean;
  /** The record's text as written, without its line end. */
  text(): string;
  /** Every field's value, as csv-parse gives it. */
  fields(): string[];
}

/** What the reader gives for each record: the column's value, whether it is blank, the lines it spans, and the rest on request. */
type OnColumnRecord = (value: string, blank: boolean, lines: number, record: ScannedRecord) => void;

/** Whether `byte` is a character String.prototype.trim removes (the ASCII ones: tab to CR, and space). */
function isAsciiSpace(byte: number): boolean {
  return byte === SPACE || (byte >= 0x09 && byte <= CR);
}

/**
 * csv-parse goes byte by byte through strings; on the 1M-row benchmark list that was 4.8 s of
 * `bulk submit`'s 6 s read, twice the time the service takes to accept the whole list
 * (bench/submit.js). This reader goes through the file's bytes instead, without decoding the
 * file, and decodes one field per record: the email column's (the merge-back asks for the rest,
and copies a record's text as written where that is what it would write). It reads the well-formed CSV nearly
 * every list is: fields plain or quoted (`""` inside a quoted one), lines ending all in LF or all
 * in CRLF. Anything else (a lone CR, a quote inside a plain field or text after a closing quote,
 * which csv-parse's relax_quotes keeps in its own way; an unterminated quote; a record over 1 MiB;
 * a delimiter beyond ASCII) makes it give up, and csv-parse reads the file from the record where
 * it did: csv-parse alone decides odd cases and names errors. The records before are given as
 * csv-parse would give them: each record's column value, blankness, lines spanned and fields are
 * what source.ts makes of csv-parse's records (test/unit/csv-fast-records.test.ts compares them).
 */
export class ColumnScanner implements ScannedRecord {
  private lineEnd: 'lf' | 'crlf' | undefined;
  private carry: Buffer = Buffer.alloc(0);
  private started = false;
  /** Bytes of the file given to onRecord (and the BOM): where a reader taking over starts. */
  private given = 0;
  private readonly delimiter: number;
  // The record being read: its column's value, whether a field held anything but spaces, whether
  // one held characters beyond ASCII (which may be spaces), and the lines it spans.
  private value = '';
  private content = false;
  private beyondAscii = false;
  private lines = 1;
  // Where its fields are in `bytes`, value start and end each, for fields() and text().
  private bytes: Buffer = Buffer.alloc(0);
  private readonly spans: number[] = [];
  private readonly quotedFields: boolean[] = [];
  private start = 0;
  private end = 0;
  canonical = true;
  /** Whether the quoted field being read holds something that needs its quotes. */
  private needsQuotes = false;

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

  get fieldCount(): number {
    return this.quotedFields.length;
  }

  /** Where another reader takes over after push answered false: the first byte of the first record not given, and the line end so far. */
  takeover(): Takeover {
    return { offset: this.given, recordEnd: this.lineEnd === undefined ? undefined : this.lineEnd === 'lf' ? '\n' : '\r\n' };
  }

  text(): string {
    return this.bytes.toString('utf8', this.start, this.end);
  }

  fields(): string[] {
    return this.quotedFields.map((quoted, index) => {
      const value = this.bytes.toString('utf8', this.spans[2 * index], this.spans[2 * index + 1]);
      return quoted ? value.replaceAll('""', '"') : value;
    });
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
      this.given = at;
    }
    while (at < bytes.length) {
      const next = this.record(bytes, at, final);
      if (next === GIVE_UP) return false;
      if (next === INCOMPLETE) break;
      this.given += next - at;
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
    this.canonical = true;
    this.spans.length = 0;
    this.quotedFields.length = 0;
    const length = bytes.length;
    let field = 0;
    let start = at;
    for (;;) {
      let end: number;
      let after: number;
      if (this.quoted && bytes[start] === QUOTE) {
        this.needsQuotes = false;
        const close = this.closingQuote(bytes, start + 1, final);
        if (close < 0) return close;
        end = close;
        after = close + 1;
        this.spans.push(start + 1, end);
        this.quotedFields.push(true);
        if (!this.needsQuotes) this.canonical = false;
        if (field === this.column) this.value = bytes.toString('utf8', start + 1, end).replaceAll('""', '"');
        if (after < length && bytes[after] !== this.delimiter && bytes[after] !== LF && bytes[after] !== CR) return GIVE_UP;
      } else {
        end = this.plainEnd(bytes, start);
        if (end === GIVE_UP) return GIVE_UP;
        if (end === length && !final) return INCOMPLETE;
        after = end;
        this.spans.push(start, end);
        this.quotedFields.push(false);
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
        if (byte === LF || byte === CR || byte === this.delimiter) this.needsQuotes = true;
        this.look(byte);
        continue;
      }
      // A quote at the end of the bytes may be the first of a `""`: the next piece tells.
      if (at + 1 === bytes.length && !final) return INCOMPLETE;
      if (bytes[at + 1] !== QUOTE) return at;
      this.content = true;
      this.needsQuotes = true;
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
    this.bytes = bytes;
    this.start = start;
    this.end = end;
    this.onRecord(this.value, !this.content && (!this.beyondAscii || this.blankText(bytes, start, end)), this.lines, this);
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
