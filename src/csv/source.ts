import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, type Options as ParseOptions } from 'csv-parse';
import { fsErrorText } from '../text/fs-errors.js';
import { sniffDialect, type Dialect } from './dialect.js';
import { findEmailColumn, type EmailColumn } from './email-column.js';
import { CsvError } from './errors.js';
import { scanColumn } from './fast-records.js';
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
interface RowPlace {
  /** The file line the row starts on, 1-based, as an editor shows it. */
  line: number;
  /** The CSV record number, 1-based, header included, blank rows not counted. */
  record: number;
}

/**
 * One record of the file as the merge-back sees it. `fields` holds at least `width` fields; a row
 * with more (data past the header) keeps them after the first `width`.
 */
export interface SourceRow extends RowPlace {
  fields: string[];
  /** A row with nothing in it (an empty line, or only delimiters and spaces). */
  blank: boolean;
}

/** Enough rows to judge the delimiter and the column; a row longer than this is an error anyway. */
const SAMPLE_BYTES = 256 * 1024;
const SAMPLE_ROWS = 200;
/** Plain text is parsed as one field per line: a NUL never occurs in an address list. */
const NO_DELIMITER = '\u0000';

function parserOptions(dialect: Dialect): ParseOptions {
  const common: ParseOptions = {
    bom: true,
    // Lists from spreadsheets are ragged and hold stray quotes inside unquoted fields (`5" tall`);
    // neither hides where the address is, so neither stops the run.
    relax_column_count: true,
    relax_quotes: true,
    // Blank rows come through, so that line numbers stay the file's and the merge-back keeps them in place.
    skip_empty_lines: false,
  };
  return dialect.kind === 'csv'
    ? { ...common, delimiter: dialect.delimiter }
    : { ...common, delimiter: NO_DELIMITER, quote: false };
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
 * data rows: fills `place` and answers true for a data row, false for the header. Shared by both
 * readers, so that a row is named alike whichever read it.
 */
function rowNumbering(source: ListSource): (place: RowPlace, blank: boolean, lines: number) => boolean {
  let beforeHeader = source.column.hasHeader;
  let nextLine = 1;
  let records = 0;
  return (place, blank, lines) => {
    place.line = nextLine;
    nextLine += lines;
    if (!blank) records += 1;
    if (beforeHeader) {
      beforeHeader = blank;
      return false;
    }
    place.record = records;
    return true;
  };
}

/**
 * Turns the parser's records into data rows, counting lines and records on the way: undefined for
 * the header (and blank lines before it); short rows padded to the list's width, trailing empty
 * fields past it dropped. A function the one consumer calls, not a stream stage of its own: an
 * object-mode stage costs a hand-over per row, about a tenth of the parse. The row it returns is
 * the same object every time, filled anew: consumers use it before asking for the next.
 */
export function dataRows(source: ListSource): (record: string[]) => SourceRow | undefined {
  const numbered = rowNumbering(source);
  const row: SourceRow = { fields: [], line: 0, record: 0, blank: false };
  return (record) => {
    row.blank = isBlank(record);
    if (!numbered(row, row.blank, linesSpanned(record))) return undefined;
    while (record.length < source.width) record.push('');
    while (record.length > source.width && record[record.length - 1]!.trim() === '') record.pop();
    row.fields = record;
    return row;
  };
}

/**
 * Streams a list's records through `rest`, in file order, never holding more than a chunk of
 * rows. The first of `rest` gets the parser's records, header included: it passes them through
 * `dataRows`. Parse errors become CsvErrors ("FILE: line N: what").
 */
export async function pipeRecords(source: ListSource, rest: NodeJS.WritableStream[], signal?: AbortSignal): Promise<void> {
  try {
    await pipeline([createReadStream(source.path), parse(parserOptions(source.dialect)), ...rest], { signal });
  } catch (error) {
    throw await toCsvError(error, source.label, source.path, delimiterOf(source.dialect));
  }
}

/** A data row as reading a list's addresses sees it: its address, where it is, and whether it is blank. */
export interface AddressRow extends RowPlace {
  /** The row's address as written, trimmed; '' when the row has none. */
  address: string;
  blank: boolean;
}

/**
 * Calls `onRow` for every row after the header, blank ones too, in file order. Read by the fast
 * reader (fast-records.ts) when the file is one it reads, else by csv-parse: `start` is called
 * again when csv-parse takes over from the start, so that the consumer forgets the rows it got.
 * The row is the same object every time, filled anew.
 */
export async function forEachAddress(source: ListSource, start: () => (row: AddressRow) => void): Promise<void> {
  const { index } = source.column;
  const row: AddressRow = { address: '', line: 0, record: 0, blank: false };
  /** What either reader gives per record (the column's field, blank, lines spanned), numbered afresh for each read. */
  const read = () => {
    const numbered = rowNumbering(source);
    const onRow = start();
    return (value: string, blank: boolean, lines: number) => {
      row.blank = blank;
      if (!numbered(row, blank, lines)) return;
      row.address = value.trim();
      onRow(row);
    };
  };
  const options = { delimiter: delimiterOf(source.dialect), quoted: source.dialect.kind === 'csv', column: index };
  if (await scanColumn(source.path, options, read())) return;
  const onRecord = read();
  await pipeRecords(source, [
    new Writable({
      objectMode: true,
      write(record: string[], _encoding, done) {
        try {
          onRecord(record[index] ?? '', isBlank(record), linesSpanned(record));
          done();
        } catch (error) {
          done(error as Error);
        }
      },
    }),
  ]);
}

/** The row's address as written, trimmed; '' when the row has none. */
export function addressOf(source: ListSource, row: SourceRow): string {
  return (row.fields[source.column.index] ?? '').trim();
}

/** Where a row is, as an editor shows it: "line 9", with the CSV record number beside when it differs. */
export function rowPlace(row: RowPlace): string {
  return row.line === row.record ? `line ${row.line}` : `line ${row.line} (record ${row.record})`;
}
