import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, type Options as ParseOptions } from 'csv-parse';
import { UsageError } from '../cli/errors.js';
import { fsErrorText } from '../text/fs-errors.js';
import { sniffDialect, type Dialect } from './dialect.js';
import { findEmailColumn, type EmailColumn } from './email-column.js';
import { toUsageError } from './parse-error.js';

/** A list file and how to read it: everything the reader and the merge-back writer share. */
export interface ListSource {
  path: string;
  /** The name the user gave, for messages. */
  label: string;
  dialect: Dialect;
  column: EmailColumn;
  /** Fields per row (of the header, or of the widest sample row): short rows are padded to it. */
  width: number;
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
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
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
  try {
    handle = await open(path, 'r');
    const buffer = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SAMPLE_BYTES, 0);
    return { text: buffer.subarray(0, bytesRead).toString('utf8'), complete: bytesRead < SAMPLE_BYTES };
  } catch (error) {
    throw new UsageError(`${label}: cannot read: ${fsErrorText(error)}`);
  } finally {
    await handle?.close();
  }
}

/**
 * The first rows of the sample. When the sample is only the start of the file, its last row may
 * be cut short and an error may be an artefact of the cut: both are left to the full read.
 */
async function parseSample(text: string, complete: boolean, source: Omit<ListSource, 'column' | 'width'>): Promise<string[][]> {
  const rows: string[][] = [];
  try {
    for await (const record of Readable.from([text]).pipe(parse(parserOptions(source.dialect)))) {
      rows.push(record as string[]);
      // One row past the sample proves the rows before it whole.
      if (rows.length > SAMPLE_ROWS) return rows.slice(0, SAMPLE_ROWS);
    }
  } catch (error) {
    if (complete) throw await toUsageError(error, source.label, source.path, delimiterOf(source.dialect));
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
  const width = column.header?.length ?? Math.max(...rows.map((row) => row.length));
  return { ...base, column, width };
}

/**
 * Turns the parser's records into data rows: undefined for the header, short rows padded to the
 * list's width so that appended columns line up. A function the one consumer calls, not a stream
 * stage of its own: an object-mode stage costs a hand-over per row, about a tenth of the parse.
 */
export function dataRows(source: ListSource): (record: string[]) => string[] | undefined {
  let skipHeader = source.column.hasHeader;
  return (record) => {
    if (skipHeader) {
      skipHeader = false;
      return undefined;
    }
    while (record.length < source.width) record.push('');
    return record;
  };
}

/**
 * Streams a list's records through `rest`, in file order, never holding more than a chunk of
 * rows. The first of `rest` gets the parser's records, header included: it passes them through
 * `dataRows`. Parse errors become "FILE: line N: what" usage errors.
 */
export async function pipeRecords(source: ListSource, rest: NodeJS.WritableStream[], signal?: AbortSignal): Promise<void> {
  try {
    await pipeline([createReadStream(source.path), parse(parserOptions(source.dialect)), ...rest], { signal });
  } catch (error) {
    throw await toUsageError(error, source.label, source.path, delimiterOf(source.dialect));
  }
}

/** Calls `onRow` for every data row (header and blank rows left out), in file order. */
export async function forEachRow(source: ListSource, onRow: (row: string[]) => void): Promise<void> {
  const toRow = dataRows(source);
  await pipeRecords(source, [
    new Writable({
      objectMode: true,
      write(record: string[], _encoding, done) {
        try {
          const row = toRow(record);
          if (row) onRow(row);
          done();
        } catch (error) {
          done(error as Error);
        }
      },
    }),
  ]);
}

/** The row's address as written, trimmed; '' when the row has none. */
export function addressOf(source: ListSource, row: string[]): string {
  return (row[source.column.index] ?? '').trim();
}
