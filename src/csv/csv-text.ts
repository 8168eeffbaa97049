import type { Dialect } from './dialect.js';

/** How output records are written: the source's own dialect, or plain RFC 4180 without one. */
export interface CsvLayout {
  delimiter: string;
  lineEnd: '\n' | '\r\n';
  bom: boolean;
}

export function csvLayout(dialect: Dialect | undefined): CsvLayout {
  return {
    delimiter: dialect?.kind === 'csv' ? dialect.delimiter : ',',
    lineEnd: dialect?.crlf ? '\r\n' : '\n',
    bom: dialect?.bom ?? false,
  };
}

/**
 * Encodes one field: quoted when it holds the delimiter, a quote, CR or LF, with inner quotes
 * doubled; as it is otherwise. csv-stringify's default rule, written out because the merge-back
 * encodes every cell of every row, and csv-stringify's generic path (a cast and an options object
 * per cell, an object-mode stage per row) took a third of its time. One difference, on purpose:
 * a lone LF in a CRLF file (a line break inside a spreadsheet cell) is quoted here, where
 * csv-stringify, told the line end, left it bare and so broke the row in two.
 */
export function csvFieldEncoder(delimiter: string): (field: string) => string {
  const needsQuotes = new RegExp(`[${delimiter}"\\r\\n]`);
  return (field) => (needsQuotes.test(field) ? `"${field.replaceAll('"', '""')}"` : field);
}
