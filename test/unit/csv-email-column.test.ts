import { describe, expect, it } from 'vitest';
import { CsvError } from '../../src/csv/errors.js';
import { findEmailColumn } from '../../src/csv/email-column.js';

const csv = { plainText: false, file: 'list.csv' };

describe('findEmailColumn', () => {
  it.each(['email', 'E-Mail', ' MAIL ', 'Email_Address'])('finds the column by the header name %j', (name) => {
    const rows = [
      ['id', 'name', name],
      ['1', 'Ann', 'not an address'],
    ];
    expect(findEmailColumn(rows, csv)).toEqual({ index: 2, hasHeader: true, header: ['id', 'name', name] });
  });

  it('finds the column whose values look most like addresses when no header names it', () => {
    const rows = [
      ['id', 'contact', 'backup'],
      ['1', 'ann@example.org', 'x'],
      ['2', 'bob@example.org', 'cy@example.org'],
      ['3', 'dan@example.org', ''],
    ];
    expect(findEmailColumn(rows, csv)).toMatchObject({ index: 1, hasHeader: true, header: rows[0] });
  });

  it('sees no header when the first row already holds an address', () => {
    const rows = [
      ['Ann', 'ann@example.org'],
      ['Bob', 'bob@example.org'],
    ];
    expect(findEmailColumn(rows, csv)).toEqual({ index: 1, hasHeader: false });
  });

  it('takes a plain-text first line as a header only when it names the column', () => {
    const text = { plainText: true, file: 'list.txt' };
    expect(findEmailColumn([['not-an-address'], ['ann@example.org']], text)).toEqual({ index: 0, hasHeader: false });
    expect(findEmailColumn([['Email'], ['ann@example.org']], text)).toMatchObject({ index: 0, hasHeader: true });
  });

  it('follows --column by name (any case) or 1-based number', () => {
    const rows = [
      ['a', 'Work', 'Home'],
      ['1', 'w@example.org', 'h@example.org'],
    ];
    expect(findEmailColumn(rows, { ...csv, column: 'home' })).toMatchObject({ index: 2, hasHeader: true });
    expect(findEmailColumn(rows, { ...csv, column: '2' })).toMatchObject({ index: 1, hasHeader: true });
    expect(findEmailColumn(rows.slice(1), { ...csv, column: '3' })).toEqual({ index: 2, hasHeader: false });
  });

  it('names the columns it saw when none holds addresses', () => {
    const rows = [
      ['name', 'phone'],
      ['Ann', '555'],
    ];
    expect(() => findEmailColumn(rows, csv)).toThrow(CsvError);
    expect(() => findEmailColumn(rows, csv)).toThrow('list.csv: no email column found; columns seen: "name", "phone"');
  });

  it('rejects a --column that is not there', () => {
    const rows = [
      ['name', 'mail'],
      ['Ann', 'a@example.org'],
    ];
    expect(() => findEmailColumn(rows, { ...csv, column: 'work' })).toThrow('no column named "work"; columns seen: "name", "mail"');
    expect(() => findEmailColumn(rows, { ...csv, column: '3' })).toThrow('list.csv: column 3 is out of range');
  });
});
