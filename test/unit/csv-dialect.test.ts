import { describe, expect, it } from 'vitest';
import { sampleRows, sniffDialect } from '../../src/csv/dialect.js';

describe('sniffDialect', () => {
  it.each([
    ['comma', 'name,email,city\nAnn,ann@example.org,Oslo\nBob,bob@example.org,Rome\n', ','],
    ['semicolon', 'name;email;note\nAnn;ann@example.org;a, b\nBob;bob@example.org;c, d\n', ';'],
    ['tab', 'name\temail\nAnn, Jr.\tann@example.org\nBob\tbob@example.org\n', '\t'],
  ])('finds the %s delimiter even when another candidate appears in the data', (_name, text, delimiter) => {
    expect(sniffDialect(text, true)).toMatchObject({ kind: 'csv', delimiter });
  });

  it('ignores delimiters inside quoted fields, newlines included', () => {
    const text = 'a;b\n"x,y,z\nstill, quoted";w\n"1,2";3\n';
    expect(sniffDialect(text, true)).toMatchObject({ kind: 'csv', delimiter: ';' });
  });

  it('lets the rows that agree out-vote a ragged one', () => {
    const text = 'email,name\na@example.org,Ann\nb@example.org,Bob;Jr;Sr\nc@example.org,Cy\n';
    expect(sniffDialect(text, true)).toMatchObject({ kind: 'csv', delimiter: ',' });
  });

  it('treats a file without any candidate delimiter as plain text', () => {
    expect(sniffDialect('ann@example.org\nbob@example.org\n', true)).toMatchObject({ kind: 'text' });
  });

  it('notes a UTF-8 BOM and CRLF line ends', () => {
    expect(sniffDialect('\uFEFFemail,x\r\na@example.org,1\r\n', true)).toEqual({ kind: 'csv', delimiter: ',', crlf: true, bom: true });
    expect(sniffDialect('email,x\na@example.org,1\n', true)).toEqual({ kind: 'csv', delimiter: ',', crlf: false, bom: false });
  });
});

describe('sampleRows', () => {
  it('drops the last row of a cut sample but keeps it when the sample is the whole file', () => {
    expect(sampleRows('a,b\nc,d\ne,f', false)).toEqual(['a,b', 'c,d']);
    expect(sampleRows('a,b\nc,d\ne,f', true)).toEqual(['a,b', 'c,d', 'e,f']);
  });

  it('skips blank rows', () => {
    expect(sampleRows('a\n\n  \nb\n', true)).toEqual(['a', 'b']);
  });
});
