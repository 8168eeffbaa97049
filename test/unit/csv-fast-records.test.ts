import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvFieldEncoder } from '../../src/csv/csv-text.js';
import type { Dialect } from '../../src/csv/dialect.js';
import { ColumnScanner, PIECE_BYTES, type ScannedRecord } from '../../src/csv/fast-records.js';
import { parserOptions } from '../../src/csv/source.js';

let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-fast-records-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const COMMA: Dialect = { kind: 'csv', delimiter: ',', crlf: false, bom: false };
const TEXT: Dialect = { kind: 'text', crlf: false, bom: false };

/**
 * What the fast reader gives per record, for one column: its value, whether the record is blank,
 * the lines it spans, every field, and (CSV only) the record's text as the merge-back writes it:
 * copied from the file where the reader says it may be, else encoded field by field.
 */
type ColumnRecord = [value: string, blank: boolean, lines: number, fields: string[], written?: string];

const delimiterOf = (dialect: Dialect) => (dialect.kind === 'csv' ? dialect.delimiter : '\u0000');

function recordOf(dialect: Dialect, value: string, blank: boolean, lines: number, record: ScannedRecord): ColumnRecord {
  const fields = record.fields();
  if (dialect.kind !== 'csv') return [value, blank, lines, fields];
  return [value, blank, lines, fields, record.canonical ? record.text() : fields.map(csvFieldEncoder(dialect.delimiter)).join(dialect.delimiter)];
}

/**
 * A list to read: a file's path, or the bytes of a list smaller than a piece (the random ones),
 * read from memory in one piece as a file of that size is: thousands of them cost no disk.
 */
type List = string | Buffer;

function streamOf(list: List): Readable {
  return typeof list === 'string' ? createReadStream(list, { highWaterMark: PIECE_BYTES }) : Readable.from([list]);
}

/** The fast reader's records for `column`, reading the file in its pieces, or 'gave up'. */
async function fast(list: List, dialect: Dialect, column = 0): Promise<ColumnRecord[] | 'gave up'> {
  const records: ColumnRecord[] = [];
  const scanner = new ColumnScanner(delimiterOf(dialect), dialect.kind === 'csv', column, (...given) => records.push(recordOf(dialect, ...given)));
  for await (const piece of streamOf(list)) {
    if (!scanner.push(piece as Buffer, false)) return 'gave up';
  }
  return scanner.push(Buffer.alloc(0), true) ? records : 'gave up';
}

/** What source.ts makes of csv-parse's records for `column`: the field (or '' past the record's end), blank, lines, fields, text. */
function expected(records: string[][], column: number, dialect: Dialect): ColumnRecord[] {
  return records.map((record) => {
    const given: ColumnRecord = [record[column] ?? '', record.every((field) => field.trim() === ''), 1 + record.join('').split('\n').length - 1, record];
    if (dialect.kind === 'csv') given.push(record.map(csvFieldEncoder(dialect.delimiter)).join(dialect.delimiter));
    return given;
  });
}

/** The fast reader's records and csv-parse's, for each of the first `columns` columns. */
async function bothWays(list: List, dialect: Dialect, columns = 3): Promise<{ ours: unknown[]; theirs: unknown[] }> {
  const records = await slow(list, dialect);
  const ours: unknown[] = [];
  const theirs: unknown[] = [];
  for (let column = 0; column < columns; column += 1) {
    ours.push(await fast(list, dialect, column));
    theirs.push(records === 'error' ? 'error' : expected(records, column, dialect));
  }
  return { ours, theirs };
}

/** csv-parse's records with the options source.ts reads lists with, or 'error'. */
async function slow(list: List, dialect: Dialect): Promise<string[][] | 'error'> {
  const records: string[][] = [];
  const collect = new Writable({
    objectMode: true,
    write(record: string[], _encoding, done) {
      records.push(record);
      done();
    },
  });
  try {
    await pipeline(streamOf(list), parse(parserOptions(dialect)), collect);
  } catch {
    return 'error';
  }
  return records;
}

async function file(content: string | Uint8Array): Promise<string> {
  const path = join(dir, `list-${(counter += 1)}.csv`);
  await writeFile(path, content);
  return path;
}

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('the fast CSV reader', () => {
  it('reads well-formed lists as csv-parse does, every column', async () => {
    const lists = [
      'email,name\nann@example.org,Ann\nbob@example.org,Bob\n',
      'email,name\r\nann@example.org,"Ann, ""A"" Smith"\r\n\r\nbob@example.org,"two\r\nlines"\r\n',
      '\uFEFFemail;note\nann@example.org;"x\ny"\n;;\nlast@example.org;',
      'a,"",b\n"",\n\n,\n"q"',
      ' ,\t, \n\u00a0,\u3000\n"\u00a0", é \n"""",\n',
      '',
      '\n\n',
      'only@example.org',
    ];
    for (const content of lists) {
      const path = await file(content);
      const delimiter = content.includes(';') ? ';' : ',';
      const { ours, theirs } = await bothWays(path, { ...COMMA, delimiter });
      expect(ours, JSON.stringify(content)).toEqual(theirs);
    }
    const text = await file('ann@example.org\n"quoted"@example.org\nbob@example.org, x\n\u00a0\n');
    const { ours, theirs } = await bothWays(text, TEXT, 1);
    expect(ours).toEqual(theirs);
  });

  it('leaves odd files to csv-parse: stray quotes, text after a closing quote, lone CRs, mixed line ends, an open quote', async () => {
    for (const content of ['a,5" tall\n', 'a,"b"c\n', 'a\rb\n', 'a\r\nb\n', 'a\nb\r\n', 'a,"open\nmore\n', 'a\nb\rc\n']) {
      expect(await fast(await file(content), COMMA), JSON.stringify(content)).toBe('gave up');
    }
    // csv-parse reads a file starting with FF FE as UTF-16 LE.
    expect(await fast(await file(Buffer.from('\uFEFFa,b\n', 'utf16le')), COMMA)).toBe('gave up');
  });

  it('agrees with csv-parse on every random file it reads, and reads none csv-parse refuses', async () => {
    const next = random(22);
    const alphabet = ['a', 'b', ',', '"', '""', '\n', '\r\n', '\r', ' ', '\t', 'é', '\u00a0'];
    let read = 0;
    for (let i = 0; i < 2000; i += 1) {
      const content = Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const list = Buffer.from(content);
      if ((await fast(list, COMMA)) === 'gave up') continue;
      read += 1;
      const { ours, theirs } = await bothWays(list, COMMA);
      expect(ours, JSON.stringify(content)).toEqual(theirs);
    }
    expect(read).toBeGreaterThan(200);
  });

  it('reads every random file the same when it comes one byte per piece (a quote, CR, delimiter or half a character at every piece end)', async () => {
    const next = random(23);
    const alphabet = ['a', 'b', ',', '"', '""', '\n', '\r\n', ' ', 'é', '\u00a0'];
    let compared = 0;
    for (let i = 0; i < 1000; i += 1) {
      const content = Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const whole = await fast(Buffer.from(content), COMMA, 1);
      if (whole === 'gave up') continue;
      compared += 1;
      const records: ColumnRecord[] = [];
      const scanner = new ColumnScanner(',', true, 1, (...given) => records.push(recordOf(COMMA, ...given)));
      const readAll = [...Buffer.from(content)].every((byte) => scanner.push(Buffer.from([byte]), false)) && scanner.push(Buffer.alloc(0), true);
      expect(readAll ? records : 'gave up', JSON.stringify(content)).toEqual(whole);
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('reads records cut across the pieces it is read in (256 KiB) whole', async () => {
    const next = random(5);
    const line = (i: number) => `user${i}@example.org,"${'x'.repeat(Math.floor(next() * 300))}""${i}""\r\nmore",${i}`;
    const path = await file(`${Array.from({ length: 12_000 }, (_, i) => line(i)).join('\r\n')}\r\n`);
    const { ours, theirs } = await bothWays(path, COMMA);
    expect(ours[0]).not.toBe('gave up');
    expect(ours).toEqual(theirs);
  });

  it('decodes the column as UTF-8 however the pieces cut its characters', async () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => `${i},jürgen.${i}@bücher.example,ÿ`);
    const path = await file(`id,email,x\n${rows.join('\n')}\n`);
    const ours = await fast(path, COMMA, 1);
    expect(ours).not.toBe('gave up');
    expect((ours as ColumnRecord[]).slice(1).map(([value]) => value)).toEqual(rows.map((_, i) => `jürgen.${i}@bücher.example`));
  });
});
