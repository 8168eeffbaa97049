import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAddressList } from '../../src/csv/address-list.js';
import { forEachRow, openListSource } from '../../src/csv/source.js';

let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-csv-source-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(content: string): Promise<string> {
  const path = join(dir, `list-${(counter += 1)}.csv`);
  await writeFile(path, content);
  return path;
}

async function rowsOf(path: string, column?: string): Promise<string[][]> {
  const rows: string[][] = [];
  await forEachRow(await openListSource(path, { column }), (row) => rows.push(row));
  return rows;
}

describe('reading a list', () => {
  it('handles a BOM, CRLF, quoted separators and newlines, blank rows, and the column under E-Mail', async () => {
    const path = await file(
      '\uFEFFid,name,E-Mail,note\r\n' +
        '1,"Doe, Ann",ann@example.org,"line one\r\nline two"\r\n' +
        '\r\n' +
        ',,,\r\n' +
        '2,Bob,bob@example.org,plain\r\n',
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

  it('reports an unterminated quote with the file and the line it opens on', async () => {
    const path = await file('email,name\na@example.org,Ann\nb@example.org,"Bob\nc@example.org,Cy\n');
    await expect(openListSource(path, { label: 'list.csv' })).rejects.toThrow(
      /^list\.csv: line 3: unterminated quote/,
    );
  });

  it('reports an unterminated quote far past the sample during the full read', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `user${i}@example.org,name ${i}`);
    const path = await file(`email,name\n${rows.join('\n')}\nlast@example.org,"open\nmore\n`);
    const source = await openListSource(path, { label: 'big.csv' });
    await expect(forEachRow(source, () => undefined)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^big\.csv: line 20002: unterminated quote/),
    });
  });

  it('names the columns seen when none holds addresses', async () => {
    const path = await file('name,phone\nAnn,555\n');
    await expect(openListSource(path, { label: 'people.csv' })).rejects.toMatchObject({
      exitCode: 2,
      message: 'people.csv: no email column found; columns seen: "name", "phone"',
    });
  });

  it('says so when the file does not exist', async () => {
    await expect(openListSource(join(dir, 'missing.csv'), { label: 'missing.csv' })).rejects.toMatchObject({
      exitCode: 2,
      message: 'missing.csv: cannot read: no such file or directory',
    });
  });

  it('says so when the path is a directory (it opens, and fails only when read)', async () => {
    await expect(openListSource(dir, { label: 'lists/' })).rejects.toMatchObject({ exitCode: 2, message: 'lists/: cannot read: is a directory' });
  });
});

describe('readAddressList', () => {
  it('de-duplicates ignoring case and spaces, and holds back rows that fail the syntax check', async () => {
    const path = await file(
      'email,n\nAnn@Example.org,1\nann@example.org ,2\nnot-an-address,3\n,4\nbob@example.org,5\nNOT-AN-ADDRESS,6\n',
    );
    const list = await readAddressList(await openListSource(path), { precheck: true });
    expect(list.addresses).toEqual(['Ann@Example.org', 'bob@example.org']);
    expect(list).toMatchObject({ rows: 6, duplicates: 2, invalid: 2 });
    expect(list.rejected).toEqual([
      { row: 3, address: 'not-an-address', reason: expect.any(String) },
      { row: 4, address: '', reason: 'no address in this row' },
    ]);
  });

  it('sends syntax-invalid addresses too with the pre-check off', async () => {
    const path = await file('email\nnot-an-address\nann@example.org\n');
    const list = await readAddressList(await openListSource(path), { precheck: false });
    expect(list.addresses).toEqual(['not-an-address', 'ann@example.org']);
    expect(list.invalid).toBe(0);
  });
});
