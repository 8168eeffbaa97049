import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { Verdict, VerificationResult } from '../engine/types.js';
import { localResult } from './precheck.js';
import { RESULT_COLUMNS, resultCells } from './result-columns.js';
import { addressKey, type ResultIndex } from './result-index.js';
import { addressOf, pipeRows, type ListSource } from './source.js';

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

/** One thing to write: a result, and the source row it answers when there is a source. */
interface Item {
  row?: string[];
  result: VerificationResult;
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
 * Source rows to items, in file order. Every row is kept for CSV (duplicates get the same result);
 * for JSON only an address's first row, since the output then holds results, not rows.
 */
function rowsToItems(source: ListSource, options: WriteResultsOptions, count: () => void): Transform {
  const written = options.format === 'csv' ? undefined : new Set<string>();
  return new Transform({
    objectMode: true,
    transform(row: string[], _encoding, done) {
      const address = addressOf(source, row);
      const result = answerFor(address, options.results);
      if (!result || (options.only && !options.only.includes(result.result))) return done();
      if (written) {
        if (address === '' || written.has(addressKey(address))) return done();
        written.add(addressKey(address));
      }
      count();
      done(null, options.format === 'csv' ? { row, result } : { result });
    },
  });
}

function resultsToItems(options: WriteResultsOptions, count: () => void): Readable {
  return Readable.from(
    (function* () {
      for (const result of options.results.values()) {
        if (options.only && !options.only.includes(result.result)) continue;
        count();
        yield { result } satisfies Item;
      }
    })(),
  );
}

/** Header names for a source without a header: `email` for the address, `columnN` for the rest. */
function headerOf(source: ListSource | undefined): string[] {
  if (!source) return ['email'];
  if (source.column.header) return source.column.header;
  return Array.from({ length: source.width }, (_, index) => (index === source.column.index ? 'email' : `column${index + 1}`));
}

/** CSV in the source's own dialect (delimiter, BOM, line ends), the header first. */
function csvText(source: ListSource | undefined): Transform[] {
  const toRecord = new Transform({
    objectMode: true,
    transform({ row, result }: Item, _encoding, done) {
      done(null, [...(row ?? [result.email]), ...resultCells(result)]);
    },
  });
  toRecord.push([...headerOf(source), ...RESULT_COLUMNS]);
  const dialect = source?.dialect;
  const csv = stringify({
    delimiter: dialect?.kind === 'csv' ? dialect.delimiter : ',',
    bom: dialect?.bom ?? false,
    record_delimiter: dialect?.crlf ? 'windows' : 'unix',
  });
  return [toRecord, csv];
}

/** The interface's result fields only, as a JSON array or one object per line. */
function jsonText(format: 'json' | 'ndjson'): Transform {
  let first = true;
  const line = ({ result: { email, result, checks, reason } }: Item) => JSON.stringify({ email, result, checks, reason });
  return new Transform({
    writableObjectMode: true,
    transform(item: Item, _encoding, done) {
      const prefix = format === 'ndjson' ? '' : first ? '[\n' : ',\n';
      first = false;
      done(null, `${prefix}${line(item)}${format === 'ndjson' ? '\n' : ''}`);
    },
    flush(done) {
      done(null, format === 'ndjson' ? '' : first ? '[]\n' : '\n]\n');
    },
  });
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
  const text = options.format === 'csv' ? csvText(options.source) : [jsonText(options.format)];
  if (options.source) await pipeRows(options.source, [rowsToItems(options.source, options, count), ...text, out], options.signal);
  else await pipeline([resultsToItems(options, count), ...text, out], { signal: options.signal });
  return written;
}
