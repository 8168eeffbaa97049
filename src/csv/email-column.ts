import { CsvError } from './errors.js';

/** Where the addresses are in a list: which field, and whether the first row names the fields. */
export interface EmailColumn {
  index: number;
  hasHeader: boolean;
  /** The first row's fields when it is a header, else undefined. */
  header?: string[];
}

/** Header names taken to mean "the address", compared trimmed and in lower case. */
const EMAIL_HEADER_NAMES = new Set(['email', 'e-mail', 'mail', 'email_address', 'email address', 'e-mail address']);

/** Loose on purpose: it finds the column; the engine's format check judges each address. */
const ADDRESS_LIKE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function looksLikeAddress(value: string | undefined): boolean {
  return value !== undefined && ADDRESS_LIKE.test(value.trim());
}

function isEmailHeaderName(value: string): boolean {
  return EMAIL_HEADER_NAMES.has(value.trim().toLowerCase());
}

function describeColumns(firstRow: string[]): string {
  return firstRow.map((cell) => JSON.stringify(cell.trim())).join(', ');
}

/** The column whose sample values most often look like addresses, or -1 when none does. */
function columnByContent(rows: string[][]): number {
  const hits: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      if (looksLikeAddress(cell)) hits[index] = (hits[index] ?? 0) + 1;
    });
  }
  let best = -1;
  hits.forEach((count, index) => {
    if (count > 0 && (best === -1 || count > hits[best]!)) best = index;
  });
  return best;
}

/**
 * A first row is a header when it names the email column, or (for delimited files) when none of
 * its fields holds an `@`. Plain-text lists need the name: a first line that is a malformed
 * address must be reported as invalid, not swallowed as a header.
 */
function firstRowIsHeader(firstRow: string[], index: number, plainText: boolean): boolean {
  if (isEmailHeaderName(firstRow[index] ?? '')) return true;
  return !plainText && !firstRow.some((cell) => cell.includes('@'));
}

function withHeader(index: number, firstRow: string[], hasHeader: boolean): EmailColumn {
  return hasHeader ? { index, hasHeader, header: firstRow } : { index, hasHeader };
}

/** The column asked for by name: a header name (any case), else a 1-based field number. */
function columnFromSpec(spec: string, firstRow: string[], plainText: boolean, file: string): EmailColumn {
  const wanted = spec.trim().toLowerCase();
  const byName = firstRow.findIndex((cell) => cell.trim().toLowerCase() === wanted);
  if (byName >= 0) return withHeader(byName, firstRow, true);
  if (/^\d+$/.test(wanted)) {
    const index = Number(wanted) - 1;
    if (index < 0 || index >= firstRow.length) {
      throw new CsvError(file, `column ${spec} is out of range: the rows have ${firstRow.length} ${firstRow.length === 1 ? 'field' : 'fields'}`, {
        columnProblem: true,
      });
    }
    return withHeader(index, firstRow, firstRowIsHeader(firstRow, index, plainText));
  }
  throw new CsvError(file, `no column named "${spec}"; columns seen: ${describeColumns(firstRow)}`, { columnProblem: true });
}

/**
 * Finds the email column from the first rows of a list: the one asked for when given, else a header
 * name, else the column whose values look most like addresses.
 */
export function findEmailColumn(rows: string[][], options: { column?: string; plainText: boolean; file: string }): EmailColumn {
  const firstRow = rows[0];
  if (!firstRow) throw new CsvError(options.file, 'no rows: the file holds no addresses');
  if (options.column !== undefined) return columnFromSpec(options.column, firstRow, options.plainText, options.file);

  const byName = firstRow.findIndex(isEmailHeaderName);
  if (byName >= 0) return withHeader(byName, firstRow, true);

  const byContent = columnByContent(rows);
  if (byContent < 0) {
    throw new CsvError(options.file, `no email column found; columns seen: ${describeColumns(firstRow)}`, { columnProblem: true });
  }
  return withHeader(byContent, firstRow, firstRowIsHeader(firstRow, byContent, options.plainText));
}
