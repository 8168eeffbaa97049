import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { parse, type Options as ParseOptions } from 'csv-parse';
import { fsErrorText } from '../text/fs-errors.js';
import { sniffDialect, type Dialect } from './dialect.js';
import { findEmailColumn, type EmailColumn } from './email-column.js';
import { CsvError } from './errors.js';
import { ColumnScanner, PIECE_BYTES, type ScannedRecord, type Takeover } from './fast-records.js';
import { notTextFile } from './not-text.js';
import { toCsvError } from './parse-error.js';

/** A list file and how to read it: everything the reader and the merge-back writer share. */
export interface ListSource {
  path: string;
  /** The name the user gave, for messages. */
  label: string;
  dialect: Dialect;
  column: EmailColumn;
  /**
   * Fields per row: the header's, or the widest sample row's without trailing empty fields. Short
   * rows are padded to it and trailing empty fields past it dropped, so appended columns line up.
   */
  width: number;
}

/** Where a row is, as `rowPlace` shows it. */
export interface RowPlace {
  /** The file line the row starts on, 1-based, as an editor shows it. */
  line: number;
  /** The CSV record number, 1-based, header included, blank rows not counted. */
  record: number;
}

/** A data row as reading a list's addresses sees it: its address, where it is, and whether it is blank. */
export interface AddressRow extends RowPlace {
  /** The row's address as written, trimmed; '' when the row has none. */
  address: string;
  /** A row with nothing in it (an empty line, or only delimiters and spaces). */
  blank: boolean;
}

/** A data row as the merge-back sees it: its address and place, and its fields on request. */
export interface SourceRow extends AddressRow {
  /**
   * At least `width` fields: short rows padded, trailing empty fields past `width` dropped; a row
   * with more (data past the header) keeps them after the first `width`.
   */
  fields(): string[];
  /**
   * The row's `width` fields as CSV text, as the merge-back would write them, when the fast reader
   * can copy them from the file (a CSV row of at most `width` fields, each quoted only where it must
   * be); undefined otherwise, and the fields are to be written one by one.
   */
  cellsText(): string | undefined;
}

/** Enough rows to judge the delimiter and the column; a row longer than this is an error anyway. */
const SAMPLE_BYTES = 256 * 1024;
const SAMPLE_ROWS = 200;
/** Plain text is parsed as one field per line: a NUL never occurs in an address list. */
const NO_DELIMITER = '\u0000';

/** csv-parse's options for a list in `dialect`, from its start. */
export function parserOptions(dialect: Dialect): ParseOptions {
  const common: ParseOptions = {
    bom: true,
    // Lists from spreadsheets are ragged and hold stray quotes inside unquoted fields (`5" tall`);
    // neither hides where the address is, so neither stops the run.
    relax_column_count: true,
    relax_quotes: true,
    // Blank rows come through, so that line numbers stay the file's and the merge-back keeps them in place.
    skip_empty_lines: false,
  };
  return dialect.kind === 'csv' ? { ...common, delimiter: dialect.delimiter } : { ...common, delimiter: NO_DELIMITER, quote: false };
}

function delimiterOf(dialect: Dialect): string {
  return dialect.kind === 'csv' ? dialect.delimiter : NO_DELIMITER;
}

/** The start of the list. A directory opens fine and fails only at the read (EISDIR), so both are answered alike. */
async function readSample(path: string, label: string): Promise<{ text: string; complete: boolean }> {
  let handle;
  let sample: Buffer;
  try {
    handle = await open(path, 'r');
    const buffer = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SAMPLE_BYTES, 0);
    sample = buffer.subarray(0, bytesRead);
  } catch (error) {
    throw new CsvError(label, `cannot read: ${fsErrorText(error)}`);
  } finally {
    await handle?.close();
  }
  const notText = notTextFile(sample, label);
  if (notText) throw new CsvError(label, `${notText.what}, not a CSV or text list`, { hint: notText.hint });
  return { text: sample.toString('utf8'), complete: sample.length < SAMPLE_BYTES };
}

/** Whether a record holds nothing but delimiters and spaces. */
function isBlank(record: string[]): boolean {
  return record.every((field) => field.trim() === '');
}

/**
 * The first non-blank rows of the sample. When the sample is only the start of the file, its last
 * row may be cut short and an error may be an artefact of the cut: both are left to the full read.
 */
async function parseSample(text: string, complete: boolean, source: Omit<ListSource, 'column' | 'width'>): Promise<string[][]> {
  const rows: string[][] = [];
  try {
    for await (const record of Readable.from([text]).pipe(parse(parserOptions(source.dialect)))) {
      if (!isBlank(record as string[])) rows.push(record as string[]);
      // One row past the sample proves the rows before it whole.
      if (rows.length > SAMPLE_ROWS) return rows.slice(0, SAMPLE_ROWS);
    }
  } catch (error) {
    if (complete) throw await toCsvError(error, source.label, source.path, delimiterOf(source.dialect));
  }
  return complete ? rows : rows.slice(0, -1);
}

/** Reads the start of a list file to learn its delimiter, header and email column. */
export async function openListSource(path: string, options: { label?: string; column?: string } = {}): Promise<ListSource> {
  const label = options.label ?? path;
  const { text, complete } = await readSample(path, label);
  const dialect = sniffDialect(text, complete);
  const base = { path, label, dialect };
  const rows = await parseSample(text, complete, base);
  const column = findEmailColumn(rows, { column: options.column, plainText: dialect.kind === 'text', file: label });
  const width = column.header?.length ?? Math.max(...rows.map(filledLength));
  return { ...base, column, width };
}

/** Fields up to the last one with something in it: `a;b;` has two. */
function filledLength(record: string[]): number {
  let length = record.length;
  while (length > 1 && record[length - 1]!.trim() === '') length -= 1;
  return length;
}

/** Lines a record spans: one, plus a line per newline inside its quoted fields. */
function linesSpanned(record: string[]): number {
  let lines = 1;
  for (const field of record) {
    for (let at = field.indexOf('\n'); at >= 0; at = field.indexOf('\n', at + 1)) lines += 1;
  }
  return lines;
}

/**
 * Numbers records by file line and record, and tells the header (and blank lines before it) from
 * data rows. Shared by both readers, so that a row is named alike whichever read it.
 */
class RowNumbering {
  private beforeHeader: boolean;
  /** The file line the next record starts on. */
  nextLine = 1;
  private records = 0;

  constructor(source: ListSource) {
    this.beforeHeader = source.column.hasHeader;
  }

  /** Fills `place` and answers true for a data row, false for the header. */
  number(place: RowPlace, blank: boolean, lines: number): boolean {
    place.line = this.nextLine;
    this.nextLine += lines;
    if (!blank) this.records += 1;
    if (this.beforeHeader) {
      this.beforeHeader = blank;
      return false;
    }
    place.record = this.records;
    return true;
  }
}

/** A record's fields as the merge-back writes them: padded to `width`, trailing empty fields past it dropped. */
function toWidth(record: string[], width: number): string[] {
  while (record.length < width) record.push('');
  while (record.length > width && record[record.length - 1]!.trim() === '') record.pop();
  return record;
}

/**
 * Reads the file with the fast reader (fast-records.ts), giving each data row to `onRow` and
 * yielding after each piece; answers where csv-parse must take over, or undefined when the file
 * was read to its end.
 */
async function* fastRows(source: ListSource, numbering: RowNumbering, onRow: (row: SourceRow) => void): AsyncGenerator<void, Takeover | undefined> {
  const { width } = source;
  const delimiter = delimiterOf(source.dialect);
  // Plain text lists are written out as CSV: their lines are fields to encode, never copies.
  const copyable = source.dialect.kind === 'csv';
  let scanned: ScannedRecord | undefined;
  const row: SourceRow = {
    address: '',
    line: 0,
    record: 0,
    blank: false,
    fields: () => toWidth(scanned!.fields(), width),
    cellsText: () => {
      const { fieldCount, canonical } = scanned!;
      return copyable && canonical && fieldCount <= width ? scanned!.text() + delimiter.repeat(width - fieldCount) : undefined;
    },
  };
  const scanner = new ColumnScanner(delimiter, copyable, source.column.index, (value, blank, lines, record) => {
    row.blank = blank;
    if (!numbering.number(row, blank, lines)) return;
    row.address = value.trim();
    scanned = record;
    onRow(row);
  });
  const stream = createReadStream(source.path, { highWaterMark: PIECE_BYTES });
  try {
    for await (const piece of stream) {
      if (!scanner.push(piece as Buffer, false)) return scanner.takeover();
      yield;
    }
  } finally {
    stream.destroy();
  }
  return scanner.push(Buffer.alloc(0), true) ? undefined : scanner.takeover();
}

/** Rows csv-parse reads per hand-back to the consumer. */
const PARSED_PER_YIELD = 256;

/** Reads the file with csv-parse from `from.offset` on, giving each data row to `onRow`. */
async function* parsedRows(source: ListSource, numbering: RowNumbering, from: Takeover, onRow: (row: SourceRow) => void): AsyncGenerator<void> {
  let record: string[] = [];
  const row: SourceRow = { address: '', line: 0, record: 0, blank: false, fields: () => toWidth(record, source.width), cellsText: () => undefined };
  const options: ParseOptions = { ...parserOptions(source.dialect), bom: from.offset === 0 };
  // The line end csv-parse would have settled on at the start of the file, had it read the whole.
  if (from.recordEnd !== undefined) options.record_delimiter = from.recordEnd;
  const linesBefore = numbering.nextLine - 1;
  const parser = createReadStream(source.path, { start: from.offset }).pipe(parse(options));
  let count = 0;
  try {
    for await (const parsed of parser) {
      record = parsed as string[];
      row.blank = isBlank(record);
      if (!numbering.number(row, row.blank, linesSpanned(record))) continue;
      row.address = (record[source.column.index] ?? '').trim();
      onRow(row);
      if ((count += 1) % PARSED_PER_YIELD === 0) yield;
    }
  } catch (error) {
    throw await toCsvError(error, source.label, source.path, delimiterOf(source.dialect), linesBefore);
  } finally {
    parser.destroy();
  }
}

/**
 * Gives every data row (blank ones too, not the header) to `onRow` in file order, and yields now
 * and then so that a consumer writing output can hand it on at the output's pace. The fast reader
 * reads as far as the file is one it reads (nearly every list: to the end); csv-parse reads the
 * rest, from the first record the fast reader left, so that odd cases are csv-parse's to decide
 * and its errors name the file's line. The row is the same object every time, filled anew:
 * consumers use it before the next.
 */
export async function* readRows(source: ListSource, onRow: (row: SourceRow) => void): AsyncGenerator<void> {
  const numbering = new RowNumbering(source);
  const takeover = yield* fastRows(source, numbering, onRow);
  if (takeover !== undefined) yield* parsedRows(source, numbering, takeover, onRow);
}

/** Calls `onRow` for every data row, blank ones too, in file order (see readRows). */
export async function forEachAddress(source: ListSource, onRow: (row: AddressRow) => void): Promise<void> {
  for await (const _ of readRows(source, onRow));
}

/** Where a row is, as an editor shows it: "line 9", with the CSV record number beside when it differs. */
export function rowPlace(row: RowPlace): string {
  return row.line === row.record ? `line ${row.line}` : `line ${row.line} (record ${row.record})`;
}
