import { createReadStream } from 'node:fs';
import { CsvError } from './errors.js';

interface CsvParseError extends Error {
  code?: string;
  lines?: number;
}

/** csv-parse's codes in words a person fixing the file can act on. */
const EXPLANATIONS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'unterminated quote: the quoted field that starts on this line is never closed',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote is followed by more text; a quote inside a quoted field is written twice ("")',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a closing quote is followed by more text; a quote inside a quoted field is written twice ("")',
  CSV_MAX_RECORD_SIZE: 'a row is too long (is a quote left open?)',
};

/**
 * The line on which the quoted field left open at the end of the file starts. csv-parse only
 * knows the last line by then, so the file is scanned again with the same quoting rules: a quote
 * opens a field only at its start, and `""` inside a quoted field is a literal quote.
 */
async function lineOfUnclosedQuote(path: string, delimiter: string): Promise<number | undefined> {
  let line = 1;
  let openedOn: number | undefined;
  let atFieldStart = true;
  let pendingQuote = false; // inside quotes, a quote was just seen: closing, or the first of ""
  for await (const chunk of createReadStream(path, { encoding: 'utf8' })) {
    for (const char of chunk as string) {
      if (openedOn !== undefined) {
        if (pendingQuote) {
          pendingQuote = false;
          if (char === '"') continue;
          openedOn = undefined;
        } else {
          if (char === '"') pendingQuote = true;
          if (char === '\n') line += 1;
          continue;
        }
      }
      if (char === '"' && atFieldStart) {
        openedOn = line;
        continue;
      }
      if (char === '\n') line += 1;
      atFieldStart = char === delimiter || char === '\n' || char === '\r';
    }
  }
  return pendingQuote ? undefined : openedOn;
}

/**
 * A csv-parse failure as a CsvError ("FILE: line N: what"); any other error as it is.
 * `linesBefore`: the file's lines before where csv-parse started reading (it counts from there).
 */
export async function toCsvError(error: unknown, label: string, path: string, delimiter: string, linesBefore = 0): Promise<unknown> {
  const parseError = error as CsvParseError;
  if (typeof parseError.code !== 'string' || !parseError.code.startsWith('CSV_')) return error;
  const parsedLine = parseError.lines === undefined ? undefined : parseError.lines + linesBefore;
  const line = parseError.code === 'CSV_QUOTE_NOT_CLOSED' ? ((await lineOfUnclosedQuote(path, delimiter)) ?? parsedLine) : parsedLine;
  const what = EXPLANATIONS[parseError.code] ?? parseError.message.replace(/\s*at line \d+/, '');
  return new CsvError(label, what, { line });
}
