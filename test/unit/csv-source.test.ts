import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAddressList } from '../../src/csv/address-list.js';
import { CsvError } from '../../src/csv/errors.js';
import { forEachAddress, openListSource, readRows, rowPlace } from '../../src/csv/source.js';

let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-csv-source-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(content: string | Uint8Array): Promise<string> {
  const path = join(dir, `list-${(counter += 1)}.csv`);
  await writeFile(path, content);
  return path;
}

/** The non-blank rows' fields as the merge-back reads them (copied: the reader reuses its row object). */
async function rowsOf(path: string, column?: string): Promise<string[][]> {
  const source = await openListSource(path, { column });
  const rows: string[][] = [];
  for await (const _ of readRows(source, (row) => {
    if (!row.blank) rows.push([...row.fields()]);
  }));
  // Reading the addresses alone (the fast reader, for these files) finds the same rows and the same column.
  expect(await addressesOf(path, column)).toEqual(rows.map((fields) => fields[source.column.index]!.trim()));
  return rows;
}

/** The non-blank rows' addresses as `bulk submit` reads them. */
async function addressesOf(path: string, column?: string): Promise<string[]> {
  const addresses: string[] = [];
  await forEachAddress(await openListSource(path, { column }), (row) => {
    if (!row.blank) addresses.push(row.address);
  });
  return addresses;
}

describe('reading a list', () => {
  it('handles a BOM, CRLF, quoted separators and newlines, blank rows, and the column under E-Mail', async () => {
    const path = await file(
      '\uFEFFid,name,E-Mail,note\r\n' + '1,"Doe, Ann",ann@example.org,"line one\r\nline two"\r\n' + '\r\n' + ',,,\r\n' + '2,Bob,bob@example.org,plain\r\n',
    );
    const source = await openListSource(path);
    expect(source.dialect).toEqual({ kind: 'csv', delimiter: ',', crlf: true, bom: true });
    expect(source.column).toEqual({ index: 2, hasHeader: true, header: ['id', 'name', 'E-Mail', 'note'] });
    expect(await rowsOf(path)).toEqual([
      ['1', 'Doe, Ann', 'ann@example.org', 'line one\r\nline two'],
      ['2', 'Bob', 'bob@example.org', 'plain'],
    ]);
  });

  it('reads plain text one address per line, quotes and commas taken literally', async () => {
    const path = await file('ann@example.org\n"john doe"@example.org\n\nbob@example.org\n');
    const source = await openListSource(path);
    expect(source.dialect.kind).toBe('text');
    expect(await rowsOf(path)).toEqual([['ann@example.org'], ['"john doe"@example.org'], ['bob@example.org']]);
  });

  it('pads short rows to the header width so appended columns line up', async () => {
    const path = await file('email;name;city\na@example.org;Ann\nb@example.org;Bob;Rome\n');
    expect(await rowsOf(path)).toEqual([
      ['a@example.org', 'Ann', ''],
      ['b@example.org', 'Bob', 'Rome'],
    ]);
  });

  it('numbers rows by file line, blank lines and embedded newlines counted, with the record number beside', async () => {
    const content = 'email,note\n\nann@example.org,"two\nlines"\n,,\nbob@example.org,x\n';
    // Read by the fast reader, and by csv-parse (a stray quote on the last row makes the fast reader give up).
    for (const path of [await file(content), await file(`${content}c@example.org,5" tall\n`)]) {
      const places: string[] = [];
      await forEachAddress(await openListSource(path), (row) => places.push(row.blank ? `line ${row.line} blank` : rowPlace(row)));
      expect(places.slice(0, 4)).toEqual(['line 2 blank', 'line 3 (record 2)', 'line 5 blank', 'line 6 (record 3)']);
    }
  });

  it('drops trailing empty fields past the header and keeps data past it after the rest', async () => {
    const path = await file('Name;Email\nAnn;ann@example.org;\nBob;bob@example.org;;extra\n');
    expect(await rowsOf(path)).toEqual([
      ['Ann', 'ann@example.org'],
      ['Bob', 'bob@example.org', '', 'extra'],
    ]);
  });

  it.each([
    ['gzip', [0x1f, 0x8b, 0x08, 0x00], /a gzip-compressed file/, /gunzip -k/],
    ['zip', [0x50, 0x4b, 0x03, 0x04], /a zip archive/, /CSV UTF-8/],
    ['UTF-16 LE', [0xff, 0xfe, 0x65, 0x00], /UTF-16 LE text/, /save it as UTF-8/],
    ['UTF-16 BE', [0xfe, 0xff, 0x00, 0x65], /UTF-16 BE text/, /save it as UTF-8/],
    ['UTF-32 LE', [0xff, 0xfe, 0x00, 0x00, 0x65, 0, 0, 0], /UTF-32 LE text/, /UTF-32/],
    ['NUL bytes', [0x65, 0x00, 0x6d, 0x00], /binary file, not text \(a NUL byte at offset 1\)/, /UTF-8/],
  ])('names a %s file for what it is, with what to do', async (_name, bytes, what, hint) => {
    const path = await file(Uint8Array.from([...bytes, 0x0a, 0x61, 0x40, 0x62, 0x2e, 0x63]));
    const error = await openListSource(path, { label: 'list.csv' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CsvError);
    expect((error as CsvError).message).toMatch(what);
    expect((error as CsvError).message).toMatch(/^list\.csv: .*not a CSV or text list$/);
    expect((error as CsvError).hint).toMatch(hint);
  });

  it('reports an unterminated quote with the file and the line it opens on', async () => {
    const path = await file('email,name\na@example.org,Ann\nb@example.org,"Bob\nc@example.org,Cy\n');
    await expect(openListSource(path, { label: 'list.csv' })).rejects.toThrow(/^list\.csv: line 3: unterminated quote/);
  });

  it('reports an unterminated quote far past the sample during the full read', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `user${i}@example.org,name ${i}`);
    const path = await file(`email,name\n${rows.join('\n')}\nlast@example.org,"open\nmore\n`);
    const source = await openListSource(path, { label: 'big.csv' });
    await expect(forEachAddress(source, () => undefined)).rejects.toMatchObject({
      file: 'big.csv',
      line: 20002,
      message: expect.stringMatching(/^big\.csv: line 20002: unterminated quote/),
    });
  });

  it('names the columns seen when none holds addresses', async () => {
    const path = await file('name,phone\nAnn,555\n');
    await expect(openListSource(path, { label: 'people.csv' })).rejects.toMatchObject({
      file: 'people.csv',
      message: 'people.csv: no email column found; columns seen: "name", "phone"',
      hint: undefined,
      columnProblem: true,
    });
  });

  it('says so when the file does not exist', async () => {
    await expect(openListSource(join(dir, 'missing.csv'), { label: 'missing.csv' })).rejects.toThrow(
      new CsvError('missing.csv', 'cannot read: no such file or directory'),
    );
  });

  it('says so when the path is a directory (it opens, and fails only when read)', async () => {
    await expect(openListSource(dir, { label: 'lists/' })).rejects.toThrow(new CsvError('lists/', 'cannot read: is a directory'));
  });
});

describe('readAddressList', () => {
  it('de-duplicates ignoring case and spaces, and holds back rows that fail the syntax check', async () => {
    const path = await file('email,n\nAnn@Example.org,1\nann@example.org ,2\nnot-an-address,3\n,4\nbob@example.org,5\nNOT-AN-ADDRESS,6\n');
    const list = await readAddressList(await openListSource(path), { precheck: true });
    expect(list.addresses).toEqual(['Ann@Example.org', 'bob@example.org']);
    expect(list).toMatchObject({ rows: 6, duplicates: 2, invalid: 2 });
    expect(list.rejected).toEqual([
      { line: 4, record: 4, address: 'not-an-address', reason: expect.any(String) },
      { line: 5, record: 5, address: '', reason: 'no address in this row' },
    ]);
  });

  it('refuses a column that holds no addresses, naming it, the file and the rows read', async () => {
    const path = await file('name,email\nAnn,ann@example.org\nBob,bob@example.org\n');
    await expect(readAddressList(await openListSource(path, { label: 'people.csv', column: 'name' }), { precheck: true })).rejects.toMatchObject({
      message: 'no addresses in column "name" of people.csv (2 rows read)',
      hint: undefined,
      columnProblem: true,
    });
  });

  it('counts every row once when csv-parse takes over late in the file from the fast reader', async () => {
    // The stray quote on the last row is relax_quotes' to read: the fast reader gives up there, after every other row.
    const rows = Array.from({ length: 3_000 }, (_, i) => `user${i % 2_000}@example.org,"Acme, Ltd",${i}`);
    const path = await file(`email,company,n\n${rows.join('\n')}\nlast@example.org,5" tall,x\nbad..dot@example.org,y,z\n`);
    const list = await readAddressList(await openListSource(path), { precheck: true });
    expect(list).toMatchObject({ rows: 3_002, duplicates: 1_000, invalid: 1 });
    expect(list.addresses).toHaveLength(2_001);
    expect(list.addresses.at(-1)).toBe('last@example.org');
    expect(list.rejected).toEqual([{ line: 3_003, record: 3_003, address: 'bad..dot@example.org', reason: expect.any(String) }]);
  });

  it('sends syntax-invalid addresses too with the pre-check off', async () => {
    const path = await file('email\nnot-an-address\nann@example.org\n');
    const list = await readAddressList(await openListSource(path), { precheck: false });
    expect(list.addresses).toEqual(['not-an-address', 'ann@example.org']);
    expect(list.invalid).toBe(0);
  });
});
