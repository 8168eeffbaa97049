import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isSelected, type ResultSelector } from '../engine/result-filter.js';
import { resultJson, type VerificationResult } from '../engine/types.js';
import { jsonSafe } from '../text/sanitize.js';
import { csvFieldEncoder, csvLayout } from './csv-text.js';
import { localResult } from './precheck.js';
import { RESULT_COLUMNS, resultCellsEncoder } from './result-columns.js';
import { addressKey } from '../text/address.js';
import type { ResultIndex } from './result-index.js';
import { addressOf, dataRows, pipeRecords, type ListSource, type SourceRow } from './source.js';

export const OUTPUT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface WriteResultsOptions {
  format: OutputFormat;
  /** The results of every job the output covers. */
  results: ResultIndex;
  /** The list the jobs came from: CSV output is then its rows with the results appended. */
  source?: ListSource;
  /** Only rows (or results) with one of these verdicts or reason codes; all when absent. */
  only?: readonly ResultSelector[];
  /** Stops the writing (Ctrl-C). */
  signal?: AbortSignal;
}

/** What a write did: entries written, and the source rows that no result and no local verdict covered. */
export interface WriteSummary {
  written: number;
  /** Non-blank source rows whose address is in none of the results (CSV: kept with empty verdict cells). */
  unmatched: number;
  /** The first few of them, as "line N" places. */
  unmatchedLines: number[];
}

/**
 * An output's text: what opens it, the text of one entry, what closes it. An entry is a result
 * (with its source row when there is a source), or for CSV a source row with no result: a blank
 * row, or one whose address no job covers. Such rows keep their place with empty verdict cells.
 */
interface TextFormat {
  head: string;
  /** Appends one entry's text to `parts`, in pieces: they are joined once per chunk. */
  entry(parts: string[], result: VerificationResult | undefined, row?: SourceRow): void;
  tail(): string;
}

/** Header names for a source without a header: `email` for the address, `columnN` for the rest. */
function headerOf(source: ListSource | undefined): string[] {
  if (!source) return ['email'];
  if (source.column.header) return source.column.header;
  return Array.from({ length: source.width }, (_, index) => (index === source.column.index ? 'email' : `column${index + 1}`));
}

/**
 * CSV in the source's own dialect (delimiter, BOM, line ends), the header first. The verdict cells
 * always follow the source's first `width` fields, under their headers; a ragged row's fields past
 * the header's (data the header does not name) are kept after them.
 */
function csvFormat(source: ListSource | undefined): TextFormat {
  const { delimiter, lineEnd, bom } = csvLayout(source?.dialect);
  const encode = csvFieldEncoder(delimiter);
  const resultText = resultCellsEncoder(encode, delimiter);
  const header = [...headerOf(source), ...RESULT_COLUMNS].map(encode).join(delimiter);
  const noResult = delimiter.repeat(RESULT_COLUMNS.length - 1);
  const width = source?.width ?? 1;
  return {
    head: `${bom ? '\uFEFF' : ''}${header}${lineEnd}`,
    entry: (parts, result, row) => {
      const fields = row?.fields ?? [result!.email];
      const verdict = result ? resultText(result) : noResult;
      if (fields.length <= width) {
        parts.push(fields.map(encode).join(delimiter), delimiter, verdict, lineEnd);
      } else {
        parts.push(fields.slice(0, width).map(encode).join(delimiter), delimiter, verdict, delimiter, fields.slice(width).map(encode).join(delimiter), lineEnd);
      }
    },
    tail: () => '',
  };
}

/** A result's JSON, with the source line it came from when there is a source. */
function jsonText(result: VerificationResult, row: SourceRow | undefined): string {
  return jsonSafe(row ? resultJson(result, row.line) : resultJson(result));
}

/**
 * The interface's result fields only, as a JSON array or one object per line; C1 controls and line
 * separators in a reason escaped (JSON.stringify leaves them raw, and ndjson is often read on a terminal).
 */
function jsonFormat(format: 'json' | 'ndjson'): TextFormat {
  if (format === 'ndjson') return { head: '', entry: (parts, result, row) => parts.push(jsonText(result!, row), '\n'), tail: () => '' };
  let empty = true;
  return {
    head: '',
    entry: (parts, result, row) => {
      parts.push(empty ? '[\n' : ',\n', jsonText(result!, row));
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

/** Unmatched rows listed by line in a summary; the count says how many more. */
const UNMATCHED_LISTED = 5;

/**
 * A parser record's entry, in file order. For CSV every row is kept, in place (duplicates get the
 * same result; blank rows and rows no job covers get empty verdict cells) unless `--only` filters;
 * for JSON only an address's first row, since the output then holds results, not rows.
 */
function rowEntries(source: ListSource, options: WriteResultsOptions, format: TextFormat, summary: WriteSummary) {
  const toRow = dataRows(source);
  const csv = options.format === 'csv';
  const written = csv ? undefined : new Set<string>();
  return (parts: string[], record: string[]): void => {
    const row = toRow(record);
    if (!row) return;
    const address = row.blank ? '' : addressOf(source, row);
    const result = row.blank ? undefined : answerFor(address, options.results);
    if (!row.blank && !result) {
      summary.unmatched += 1;
      if (summary.unmatchedLines.length < UNMATCHED_LISTED) summary.unmatchedLines.push(row.line);
    }
    if (options.only ? !result || !isSelected(options.only, result) : !result && !csv) return;
    if (written) {
      const key = addressKey(address);
      if (address === '' || written.has(key)) return;
      written.add(key);
    }
    summary.written += 1;
    format.entry(parts, result, row);
  };
}

function resultEntries(options: WriteResultsOptions, format: TextFormat, summary: WriteSummary) {
  return (parts: string[], result: VerificationResult): void => {
    if (options.only && !isSelected(options.only, result)) return;
    summary.written += 1;
    format.entry(parts, result);
  };
}

/**
 * Writes results to `out`, streaming: with a source, its rows re-read in order (CSV: each row
 * with `result, reason, <checks>` appended; JSON: each result with its source `row`, the file
 * line); without one, `email, result, reason, <checks>`. Resolves with what was written.
 */
export async function writeResults(out: NodeJS.WritableStream, options: WriteResultsOptions): Promise<WriteSummary> {
  const summary: WriteSummary = { written: 0, unmatched: 0, unmatchedLines: [] };
  const format = options.format === 'csv' ? csvFormat(options.source) : jsonFormat(options.format);
  if (options.source) {
    await pipeRecords(options.source, [chunkedText(format, rowEntries(options.source, options, format, summary)), out], options.signal);
  } else {
    const text = chunkedText(format, resultEntries(options, format, summary));
    await pipeline([Readable.from(options.results.values()), text, out], { signal: options.signal });
  }
  return summary;
}
