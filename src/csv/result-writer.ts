import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isSelected, type ResultSelector } from '../engine/result-filter.js';
import { resultJson, type VerificationResult } from '../engine/core/types.js';
import { jsonSafe } from '../text/sanitize.js';
import { csvFieldEncoder, csvLayout } from './csv-text.js';
import { localResult } from './precheck.js';
import { RESULT_COLUMNS, resultCellsEncoder } from './result-columns.js';
import { addressKey } from '../engine/checks/address-key.js';
import type { ResultIndex } from './result-index.js';
import { readRows, type ListSource, type SourceRow } from './source.js';

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
  /** Leaves `out` open at the end, for more to follow (stdout, where an event may come after the results). */
  leaveOpen?: boolean;
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
      const verdict = result ? resultText(result) : noResult;
      const copied = row?.cellsText();
      if (copied !== undefined) {
        parts.push(copied, delimiter, verdict, lineEnd);
        return;
      }
      const fields = row ? row.fields() : [result!.email];
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
/**
 * Chunks queued for `out` while it writes (its own buffer may be small): reading goes on meanwhile.
 * Not more: reading outruns a file's writes, so the queue stays full, and what waits in it long
 * enough is moved to the old generation: a queue of 4 MB raised a 5M-row merge-back's peak RSS
 * from 645 MB to 1.5 GB, at the same speed.
 */
const QUEUED_CHUNKS = 8;

/** An output's text gathered in pieces and joined into chunks of about CHUNK_CHARS. */
class TextChunks {
  /** What entries append their text to. */
  parts: string[];
  private measured = 0;
  private chars = 0;
  private ready: string[] = [];

  constructor(head: string) {
    this.parts = [head];
  }

  /** Counts what was appended since; joins a chunk once there is enough. */
  added(): void {
    for (; this.measured < this.parts.length; this.measured += 1) this.chars += this.parts[this.measured]!.length;
    if (this.chars < CHUNK_CHARS) return;
    this.ready.push(this.parts.join(''));
    this.parts = [];
    this.measured = 0;
    this.chars = 0;
  }

  /** The chunks joined so far, to hand on. */
  take(): string[] {
    const ready = this.ready;
    this.ready = [];
    return ready;
  }

  /** Everything left, with the output's `tail`. */
  end(tail: string): string[] {
    this.parts.push(tail);
    return [...this.take(), this.parts.join('')];
  }
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
function rowEntries(options: WriteResultsOptions, format: TextFormat, summary: WriteSummary) {
  const csv = options.format === 'csv';
  const written = csv ? undefined : new Set<string>();
  return (parts: string[], row: SourceRow): void => {
    const address = row.blank ? '' : row.address;
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

/** The output's text for every source row, in file order, chunk by chunk. */
async function* textOfRows(source: ListSource, options: WriteResultsOptions, format: TextFormat, summary: WriteSummary): AsyncGenerator<string> {
  const text = new TextChunks(format.head);
  const entry = rowEntries(options, format, summary);
  const onRow = (row: SourceRow) => {
    entry(text.parts, row);
    text.added();
  };
  for await (const _ of readRows(source, onRow)) yield* text.take();
  yield* text.end(format.tail());
}

/** The output's text for every result, chunk by chunk. */
function* textOfResults(options: WriteResultsOptions, format: TextFormat, summary: WriteSummary): Generator<string> {
  const text = new TextChunks(format.head);
  const entry = resultEntries(options, format, summary);
  for (const result of options.results.values()) {
    entry(text.parts, result);
    text.added();
    yield* text.take();
  }
  yield* text.end(format.tail());
}

/**
 * Writes results to `out`, streaming: with a source, its rows re-read in order (CSV: each row
 * with `result, reason, <checks>` appended; JSON: each result with its source `row`, the file
 * line); without one, `email, result, reason, <checks>`. Resolves with what was written.
 */
export async function writeResults(out: NodeJS.WritableStream, options: WriteResultsOptions): Promise<WriteSummary> {
  const summary: WriteSummary = { written: 0, unmatched: 0, unmatchedLines: [] };
  const format = options.format === 'csv' ? csvFormat(options.source) : jsonFormat(options.format);
  const text = options.source ? textOfRows(options.source, options, format, summary) : textOfResults(options, format, summary);
  await pipeline([Readable.from(text, { highWaterMark: QUEUED_CHUNKS }), out], { signal: options.signal, end: options.leaveOpen !== true });
  return summary;
}
