/** How a list file is laid out: delimited fields, or plain text with one address per line. */
export type Dialect = { kind: 'csv'; delimiter: Delimiter; crlf: boolean; bom: boolean } | { kind: 'text'; crlf: boolean; bom: boolean };

const DELIMITERS = [',', ';', '\t'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

const BOM = '\uFEFF';
/** Rows looked at to decide the delimiter; enough to out-vote a ragged line or two. */
const SNIFF_ROWS = 50;

/**
 * The rows at the start of `sample` (a prefix of the file), split on newlines outside double
 * quotes so that a quoted field holding a newline stays in its row. Unless `complete` says the
 * sample is the whole file, the text after the last such newline is left out: it may be cut short.
 */
export function sampleRows(sample: string, complete: boolean): string[] {
  const rows: string[] = [];
  let inQuotes = false;
  let start = 0;
  for (let i = 0; i < sample.length; i += 1) {
    const char = sample[i];
    if (char === '"') inQuotes = !inQuotes;
    else if (char === '\n' && !inQuotes) {
      rows.push(sample.slice(start, i));
      start = i + 1;
    }
  }
  if (complete) rows.push(sample.slice(start));
  return rows.filter((row) => row.trim() !== '');
}

/** Occurrences of `delimiter` outside double quotes in one row. */
function countOutsideQuotes(row: string, delimiter: string): number {
  let count = 0;
  let inQuotes = false;
  for (const char of row) {
    if (char === '"') inQuotes = !inQuotes;
    else if (char === delimiter && !inQuotes) count += 1;
  }
  return count;
}

/** The count most rows agree on, and how many rows agree. */
function mostCommon(counts: number[]): { value: number; rows: number } {
  const tally = new Map<number, number>();
  for (const count of counts) tally.set(count, (tally.get(count) ?? 0) + 1);
  let best = { value: 0, rows: 0 };
  for (const [value, rows] of tally) {
    if (rows > best.rows || (rows === best.rows && value > best.value)) best = { value, rows };
  }
  return best;
}

/**
 * Picks the delimiter among `,` `;` and tab that splits the sample rows most consistently: the
 * one whose per-row count (at least 1) is shared by the most rows, more fields breaking ties.
 * No candidate present at all means plain text, one address per line.
 */
export function sniffDialect(sample: string, complete: boolean): Dialect {
  const bom = sample.startsWith(BOM);
  const text = bom ? sample.slice(1) : sample;
  const crlf = /\r\n/.test(text.slice(0, 64 * 1024));
  const rows = sampleRows(text, complete).slice(0, SNIFF_ROWS);
  let best: { delimiter: Delimiter; rows: number; fields: number } | undefined;
  for (const delimiter of DELIMITERS) {
    const common = mostCommon(rows.map((row) => countOutsideQuotes(row, delimiter)));
    if (common.value === 0) continue;
    if (!best || common.rows > best.rows || (common.rows === best.rows && common.value > best.fields)) {
      best = { delimiter, rows: common.rows, fields: common.value };
    }
  }
  return best ? { kind: 'csv', delimiter: best.delimiter, crlf, bom } : { kind: 'text', crlf, bom };
}
