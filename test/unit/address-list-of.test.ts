import { describe, expect, it } from 'vitest';
import { addressListOf } from '../../src/csv/address-list.js';

/** A list given as an array (mcp's submit_list) is read as a one-address-per-line file would be. */
describe('addressListOf', () => {
  it('trims, de-duplicates ignoring ASCII case, and pre-checks, naming each rejected entry by its place', () => {
    const list = addressListOf([' ann@example.com', 'ANN@example.com', 'not-an-address', '', 'bob@example.org'], { precheck: true });
    expect(list).toMatchObject({ addresses: ['ann@example.com', 'bob@example.org'], rows: 5, duplicates: 1, invalid: 2 });
    expect(list.rejected.map((row) => [row.line, row.address])).toEqual([
      [3, 'not-an-address'],
      [4, ''],
    ]);
  });

  it('sends what fails the syntax check when told not to pre-check', () => {
    expect(addressListOf(['not-an-address'], { precheck: false }).addresses).toEqual(['not-an-address']);
  });
});
