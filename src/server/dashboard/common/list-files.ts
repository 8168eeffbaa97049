import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAddressList, type AddressList, type RejectedPage } from '../../../csv/address-list.js';
import { CsvError } from '../../../csv/errors.js';
import { openListSource, type ListSource } from '../../../csv/source.js';
import { ProblemError } from '../../http/errors.js';
import type { ListUpload } from '../../store/store.js';

/** A list file's name (for messages) and bytes, uploaded or kept. */
export type ListFile = Pick<ListUpload, 'fileName' | 'content'>;

/**
 * The CLI's CSV layer (src/csv: dialect sniffing, BOM and CRLF, column detection, de-duplication,
 * the syntax pre-check, merge-back) reads list files by path, streaming; an upload lives in the
 * store. So each use writes the upload to a private temp file for the length of one call.
 */
export async function withListFile<T>(upload: ListFile, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'mailverify-upload-'));
  try {
    const path = join(dir, 'list');
    await writeFile(path, upload.content, { mode: 0o600 });
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An upload read as the CLI reads a list: its layout, email column (detected, or the 1-based one given) and addresses. */
export interface ReadList {
  source: ListSource;
  list: AddressList;
}

export function openUploadedList(path: string, upload: ListFile, column: string | undefined): Promise<ListSource> {
  return openListSource(path, { label: upload.fileName, column });
}

export async function readUploadedList(upload: ListFile, column: string | undefined): Promise<ReadList> {
  return withListFile(upload, async (path) => {
    const source = await openUploadedList(path, upload, column);
    return { source, list: await readAddressList(source, { precheck: true }) };
  });
}

/**
 * What the preview shows: the list as read with the column asked for (or detected), or, when no
 * column could be found or the one chosen holds no addresses, why not, with the file's columns
 * (read as if the first were the one) to choose another from. A file that cannot be read as a list
 * at all (an unclosed quote, a gzip file) still throws its CsvError.
 */
export type ListPreview = { source: ListSource; list: AddressList; problem?: undefined } | { source: ListSource; list?: undefined; problem: string };

export async function previewUploadedList(upload: ListFile, column: string | undefined, rejected?: RejectedPage): Promise<ListPreview> {
  return withListFile(upload, async (path) => {
    let source: ListSource;
    try {
      source = await openUploadedList(path, upload, column);
    } catch (error) {
      if (!(error instanceof CsvError) || column !== undefined) throw error;
      return { source: await openUploadedList(path, upload, '1'), problem: error.message };
    }
    try {
      return { source, list: await readAddressList(source, { precheck: true, rejected }) };
    } catch (error) {
      // A parse error names its line; "no addresses in this column" does not, and another column may have them.
      if (!(error instanceof CsvError) || error.line !== undefined) throw error;
      return { source, problem: error.message };
    }
  });
}

/**
 * A problem with the file itself (no email column, an unclosed quote on line N, a column out of
 * range, a gzip or UTF-16 file) as the 400 it is, in the CSV layer's own words, which name the
 * file and the line, and say what to do; where another column may do, the dashboard's way to pick
 * one (the preview page's choice), not the CLI's flag.
 */
export async function asListProblem<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CsvError) {
      const hint = error.hint ?? (error.columnProblem ? "go back to the list's page and choose the column that holds the addresses" : undefined);
      throw new ProblemError('invalid_request', hint ? `${error.message} (${hint})` : error.message);
    }
    throw error;
  }
}
