import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { resultJson, type Verdict, type VerificationResult } from '../engine/types.js';
import { jsonSafe } from '../text/sanitize.js';
import { csvFieldEncoder, csvLayout } from './csv-text.js';
import { localResult } from './precheck.js';
import { RESULT_COLUMNS, resultCellsEncoder } from './result-columns.js';
import { addressKey, type ResultIndex } from './result-index.js';
import { addressOf, dataRows, pipeRecords, type ListSource } from './source.js';

export const OUTPUT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface WriteResultsOptions {
  format: OutputFormat;
  /** The results of every job the output covers. */
  results: ResultIndex;
  /** The list the jobs came from: CSV output is then its rows with the results appended. */
  source?: ListSource;
  /** Only rows (or results) with one of these verdicts; all when absent. */
  only?: readonly Verdict[];
  /** Stops the writing (Ctrl-C). */
  signal?: AbortSignal;
}

/** An output's text: what opens it, the text of one result (with its source row for CSV), what closes it. */
interface TextFormat {
  head: string;
  /** Appends one result's text to `parts`, in pieces: they are joined once per chunk. */
  entry(parts: string[], result: VerificationResult, row?: string[]): void;
  tail(): string;
}

/** Header names for a source without a header: `email` for the address, `columnN` for the rest. */
function headerOf(source: ListSource | undefined): string[] {
  if (!source) return ['email'];
  if (source.column.header) return source.column.header;
  return Array.from({ length: source.width }, (_, index) => (index === source.column.index ? 'email' : `column${index + 1}`));
}

/** CSV in the source's own dialect (delimiter, BOM, line ends), the header first. */
function csvFormat(source: ListSource | undefined): TextFormat {
  const { delimiter, lineEnd, bom } = csvLayout(source?.dialect);
  const encode = csvFieldEncoder(delimiter);
  const resultText = resultCellsEncoder(encode, delimiter);
  const header = [...headerOf(source), ...RESULT_COLUMNS].map(encode).join(delimiter);
  return {
    head: `${bom ? '\uFEFF' : ''}${header}${lineEnd}`,
    entry: (parts, result, row) => {
      parts.push((row ?? [result.email]).map(encode).join(delimiter), delimiter, resultText(result), lineEnd);
    },
    tail: () => '',
  };
}

/**
 * The interface's result fields only, as a JSON array or one object per line; C1 controls and line
 * separators in a reason escaped (JSON.stringify leaves them raw, and ndjson is often read on a terminal).
 */
function jsonFormat(format: 'json' | 'ndjson'): TextFormat {
  if (format === 'ndjson') return { head: '', entry: (parts, result) => parts.push(jsonSafe(resultJson(result)), '\n'), tail: () => '' };
  let empty = true;
  return {
    head: '',
    entry: (parts, result) => {
      parts.push(empty ? '[\n' : ',\n', jsonSafe(resultJson(result)));
      empty = false;
    },
    tail: () => (empty ? '[]\n' : '\n]\n'),
  };
}

/**
 * Characters per chunk handed to `out`: one write per chunk instead of one per row. Not more: with
 * chunks of 100 KB and up, a 5M-row merge-back's heap grew to 1.2 GB of pieces kept alive into the
 * old generation, against 330 MB at this size, at the same speed.
 */
const CHUNK_CHARS = 48 * 1024;
/** Text queued for `out` while it writes (its own buffer may be small): reading goes on meanwhile. */
const QUEUED_BYTES = 4 * 1024 * 1024;

/** Items in, `format`'s text out in chunks; `entryOf` appends an item's text, or nothing to leave it out. */
function chunkedText<T>(format: TextFormat, entryOf: (parts: string[], item: T) => void): Transform {
  let parts = [format.head];
  let measured = 0;
  let chars = 0;
  return new Transform({
    writableObjectMode: true,
    readableHighWaterMark: QUEUED_BYTES,
    transform(item: T, _encoding, done) {
      entryOf(parts, item);
      for (; measured < parts.length; measured += 1) chars += parts[measured]!.length;
      if (chars < CHUNK_CHARS) return done();
      const chunk = parts.join('');
      parts = [];
      measured = 0;
      chars = 0;
      done(null, chunk);
    },
    flush(done) {
      parts.push(format.tail());
      done(null, parts.join(''));
    },
  });
}

/**
 * The answer for one source row: the service's result; else, for a row that was never sent, the
 * local verdict (no address, or failed the syntax pre-check); else nothing, because the address
 * belongs to a job this output does not cover.
 */
function answerFor(address: string, results: ResultIndex): VerificationResult | undefined {
  return results.get(address) ?? localResult(address);
}

/**
 * A parser record's entry, in file order. Every row is kept for CSV (duplicates get the same
 * result); for JSON only an address's first row, since the output then holds results, not rows.
 */
function rowEntries(source: ListSource, options: WriteResultsOptions, format: TextFormat, count: () => void) {
  const toRow = dataRows(source);
  const written = options.format === 'csv' ? undefined : new Set<string>();
  return (parts: string[], record: string[]): void => {
    const row = toRow(record);
    if (!row) return;
    const address = addressOf(source, row);
    const result = answerFor(address, options.results);
    if (!result || (options.only && !options.only.includes(result.result))) return;
    if (written) {
      const key = addressKey(address);
      if (address === '' || written.has(key)) return;
      written.add(key);
    }
    count();
    format.entry(parts, result, row);
  };
}

function resultEntries(options: WriteResultsOptions, format: TextFormat, count: () => void) {
  return (parts: string[], result: VerificationResult): void => {
    if (options.only && !options.only.includes(result.result)) return;
    count();
    format.entry(parts, result);
  };
}

/**
 * Writes results to `out`, streaming: with a source, its rows re-read in order (CSV: each row
 * with `result, reason, <checks>` appended); without one, `email, result, reason, <checks>`.
 * Resolves with the number of rows (CSV) or results (JSON) written.
 */
export async function writeResults(out: NodeJS.WritableStream, options: WriteResultsOptions): Promise<number> {
  let written = 0;
  const count = () => {
    written += 1;
  };
  const format = options.format === 'csv' ? csvFormat(options.source) : jsonFormat(options.format);
  if (options.source) {
    await pipeRecords(options.source, [chunkedText(format, rowEntries(options.source, options, format, count)), out], options.signal);
  } else {
    const text = chunkedText(format, resultEntries(options, format, count));
    await pipeline([Readable.from(options.results.values()), text, out], { signal: options.signal });
  }
  return written;
}
