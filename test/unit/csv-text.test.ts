import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { text } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvFieldEncoder } from '../../src/csv/csv-text.js';
import { RESULT_COLUMNS, resultCellsEncoder } from '../../src/csv/result-columns.js';
import { ResultIndex } from '../../src/csv/result-index.js';
import { writeResults } from '../../src/csv/result-writer.js';
import { openListSource } from '../../src/csv/source.js';
import { NOTHING_CHECKED, type Checks, type VerificationResult } from '../../src/engine/core/types.js';

/** Fields that need quoting, fields that look as if they might, and ones that do not. */
const FIELDS = ['', 'plain', 'a,b', 'a;b', 'a\tb', 'say "hi"', '"', 'line\nbreak', 'cr\rhere', 'crlf\r\nhere', ' spaced ', 'é例😀', '=1+2', '-5', '@x', "it's"];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-csv-text-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('csvFieldEncoder', () => {
  it.each([',', ';', '\t'])('quotes exactly as csv-stringify does by default, with %j as the delimiter', (delimiter) => {
    const encode = csvFieldEncoder(delimiter);
    for (const field of FIELDS) {
      expect(encode(field), JSON.stringify(field)).toBe(stringify([[field]], { delimiter }).slice(0, -1));
    }
  });
});

describe('resultCellsEncoder', () => {
  const encode = csvFieldEncoder(',');
  const cellsOf = (result: VerificationResult) => parse(resultCellsEncoder(encode, ',')(result)) as string[][];

  it('puts each check under its own column, whatever the shapes met before', () => {
    const toText = resultCellsEncoder(encode, ',');
    const checkNames = RESULT_COLUMNS.slice(3, -2) as (keyof Checks)[];
    // One check set at a time, through one encoder: a shape cached for one result must not answer for another.
    for (const name of checkNames) {
      const checks = { ...NOTHING_CHECKED, [name]: name === 'smtpStatus' ? 'valid' : true } as Checks;
      const [cells] = parse(toText({ email: 'a@example.org', result: 'risky', reason: 'r, "q"', reasonCode: 'role', checks })) as string[][];
      const expected = checkNames.map((each) => (each === name ? String(checks[each]) : String(NOTHING_CHECKED[each])));
      expect(cells, name).toEqual(['risky', 'r, "q"', 'role', ...expected, '', '']);
    }
  });

  it('tells apart shapes whose values only differ outside the booleans', () => {
    const toText = resultCellsEncoder(encode, ',');
    const withStatus = (smtpStatus: string) =>
      toText({ email: 'a@example.org', result: 'unknown', reason: '', reasonCode: 'timeout', checks: { ...NOTHING_CHECKED, smtpStatus } as Checks });
    expect(withStatus('valid')).toContain(',valid,');
    expect(withStatus('odd, "status"')).toContain(',"odd, ""status""",');
    expect(withStatus('unknown')).toContain(',unknown,');
  });

  it('writes the cells the columns name', () => {
    expect(
      cellsOf({
        email: 'a@example.org',
        result: 'invalid',
        reason: '550 5.1.1 <a@example.org>: no',
        reasonCode: 'mailbox_not_found',
        checks: NOTHING_CHECKED,
      })[0],
    ).toHaveLength(RESULT_COLUMNS.length);
  });

  it('puts the suggestion, then the deciding evidence last, each empty when there is none', () => {
    const typo = {
      email: 'ann@gmial.com',
      result: 'invalid' as const,
      reason: 'the domain does not exist (NXDOMAIN)',
      reasonCode: 'domain_not_found' as const,
      checks: NOTHING_CHECKED,
    };
    expect(RESULT_COLUMNS.slice(-2)).toEqual(['suggestion', 'evidence']);
    expect(cellsOf({ ...typo, suggestion: 'ann@gmail.com' })[0]!.slice(-2)).toEqual(['ann@gmail.com', '']);
    expect(cellsOf(typo)[0]!.slice(-2)).toEqual(['', '']);
    const bounced = { ...typo, reasonCode: 'bounced' as const, evidence: { kind: 'bounce' as const, at: '2026-10-01T08:00:00.000Z', source: '=postfix' } };
    expect(cellsOf(bounced)[0]!.at(-1)).toBe('bounce 2026-10-01 (=postfix)');
  });
});

describe('merge-back of a CRLF list with a line break inside a cell', () => {
  it('keeps the cell whole: the break is quoted, the row stays one row', async () => {
    const path = join(dir, 'excel.csv');
    await writeFile(path, 'email,note\r\nann@example.org,"first line\nsecond line"\r\nbob@example.org,plain\r\n');
    const results = new ResultIndex().add(
      ['ann@example.org', 'bob@example.org'].map((email) => ({
        email,
        result: 'valid' as const,
        reason: '',
        reasonCode: 'accepted' as const,
        checks: NOTHING_CHECKED,
      })),
    );
    const out = new PassThrough();
    const written = text(out);
    await writeResults(out, { format: 'csv', results, source: await openListSource(path) });
    // Read as Excel or Python's csv module would: a line break outside quotes ends a row, CRLF or not.
    const rows = parse(await written, { record_delimiter: ['\r\n', '\n'], relax_column_count: true }) as string[][];
    expect(rows.map((row) => row.slice(0, 3))).toEqual([
      ['email', 'note', 'result'],
      ['ann@example.org', 'first line\nsecond line', 'valid'],
      ['bob@example.org', 'plain', 'valid'],
    ]);
  });
});
