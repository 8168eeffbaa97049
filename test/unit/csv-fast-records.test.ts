import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/csv/dialect.js';
import { RecordScanner, scanRecords } from '../../src/csv/fast-records.js';
import { pipeRecords, type ListSource } from '../../src/csv/source.js';

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

/** The fast reader's records, or 'gave up'. */
async function fast(path: string, dialect: Dialect): Promise<string[][] | 'gave up'> {
  const records: string[][] = [];
  const options = dialect.kind === 'csv' ? { delimiter: dialect.delimiter, quoted: true } : { delimiter: '\u0000', quoted: false };
  return (await scanRecords(path, options, (record) => records.push(record))) ? records : 'gave up';
}

/** csv-parse's records with the options source.ts reads lists with, or 'error'. */
async function slow(path: string, dialect: Dialect): Promise<string[][] | 'error'> {
  const records: string[][] = [];
  const source = { path, label: 'list', dialect, column: { index: 0, hasHeader: false }, width: 1 } as unknown as ListSource;
  const collect = new Writable({
    objectMode: true,
    write(record: string[], _encoding, done) {
      records.push(record);
      done();
    },
  });
  try {
    await pipeRecords(source, [collect]);
  } catch {
    return 'error';
  }
  return records;
}

async function file(content: string): Promise<string> {
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
  it('reads well-formed lists as csv-parse does', async () => {
    const lists = [
      'email,name\nann@example.org,Ann\nbob@example.org,Bob\n',
      'email,name\r\nann@example.org,"Ann, ""A"" Smith"\r\n\r\nbob@example.org,"two\r\nlines"\r\n',
      '\uFEFFemail;note\nann@example.org;"x\ny"\n;;\nlast@example.org;',
      'a,"",b\n"",\n\n,\n"q"',
      '',
      '\n\n',
      'only@example.org',
    ];
    for (const content of lists) {
      const path = await file(content);
      const delimiter = content.includes(';') ? ';' : ',';
      const dialect: Dialect = { ...COMMA, delimiter };
      expect(await fast(path, dialect), JSON.stringify(content)).toEqual(await slow(path, dialect));
    }
    const text = await file('ann@example.org\n"quoted"@example.org\nbob@example.org, x\n');
    expect(await fast(text, TEXT)).toEqual(await slow(text, TEXT));
  });

  it('leaves odd files to csv-parse: stray quotes, text after a closing quote, lone CRs, mixed line ends, an open quote', async () => {
    for (const content of ['a,5" tall\n', 'a,"b"c\n', 'a\rb\n', 'a\r\nb\n', 'a\nb\r\n', 'a,"open\nmore\n', 'a\nb\rc\n']) {
      expect(await fast(await file(content), COMMA), JSON.stringify(content)).toBe('gave up');
    }
  });

  it('agrees with csv-parse on every random file it reads, and reads none csv-parse refuses', async () => {
    const next = random(22);
    const alphabet = ['a', 'b', ',', '"', '""', '\n', '\r\n', '\r', ' ', 'é'];
    let read = 0;
    for (let i = 0; i < 2000; i += 1) {
      const content = Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const path = await file(content);
      const ours = await fast(path, COMMA);
      if (ours === 'gave up') continue;
      read += 1;
      expect(ours, JSON.stringify(content)).toEqual(await slow(path, COMMA));
    }
    expect(read).toBeGreaterThan(200);
  });

  it('reads every random file the same when it comes one character per piece (a quote, CR or delimiter at every piece end)', async () => {
    const next = random(23);
    const alphabet = ['a', 'b', ',', '"', '""', '\n', '\r\n', ' ', 'é'];
    let compared = 0;
    for (let i = 0; i < 1000; i += 1) {
      const content = Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const whole = await fast(await file(content), COMMA);
      if (whole === 'gave up') continue;
      compared += 1;
      const records: string[][] = [];
      const scanner = new RecordScanner(',', true, (record) => records.push(record));
      const readAll = [...content].every((char) => scanner.push(char, false)) && scanner.push('', true);
      expect(readAll ? records : 'gave up', JSON.stringify(content)).toEqual(whole);
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('reads records cut across the pieces it is read in (256 KiB) whole', async () => {
    const next = random(5);
    const line = (i: number) => `user${i}@example.org,"${'x'.repeat(Math.floor(next() * 300))}""${i}""\r\nmore",${i}`;
    const path = await file(`${Array.from({ length: 12_000 }, (_, i) => line(i)).join('\r\n')}\r\n`);
    const ours = await fast(path, COMMA);
    expect(ours).not.toBe('gave up');
    expect(ours).toEqual(await slow(path, COMMA));
  });
});
