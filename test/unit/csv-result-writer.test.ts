import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultIndex } from '../../src/csv/result-index.js';
import { writeResults, type WriteResultsOptions } from '../../src/csv/result-writer.js';
import { openListSource } from '../../src/csv/source.js';
import type { ReasonCode } from '../../src/engine/core/reason-codes.js';
import type { Checks, Verdict, VerificationResult } from '../../src/engine/core/types.js';

const CHECKS: Checks = {
  format: true,
  domainExists: true,
  hasMx: true,
  domainReachable: false,
  smtpStatus: 'valid',
  isDisposable: false,
  isRole: false,
  isBlacklisted: false,
  isKnownProvider: false,
  isCatchAll: false,
};
const result = (email: string, verdict: Verdict): VerificationResult => ({
  email,
  result: verdict,
  checks: CHECKS,
  reason: `${verdict} because`,
  reasonCode: CODE_OF[verdict],
});
const CODE_OF: Record<Verdict, ReasonCode> = { valid: 'accepted', invalid: 'mailbox_not_found', risky: 'role', catch_all: 'catch_all', unknown: 'timeout' };
const CHECK_VALUES = ['true', 'true', 'true', 'false', 'valid', 'false', 'false', 'false', 'false', 'false'];
const RESULT_HEADER = [
  'result',
  'reason',
  'reason_code',
  'format',
  'domainExists',
  'hasMx',
  'domainReachable',
  'smtpStatus',
  'isDisposable',
  'isRole',
  'isBlacklisted',
  'isKnownProvider',
  'isCatchAll',
  'suggestion',
  'evidence',
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-csv-writer-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function written(options: WriteResultsOptions): Promise<{ output: string; count: number }> {
  const out = new PassThrough();
  // Bytes, not stream/consumers' text(): its decoder would drop the BOM under test.
  const output = buffer(out);
  const { written: count } = await writeResults(out, options);
  return { output: (await output).toString('utf8'), count };
}

const results = new ResultIndex().add([result('Ann@Example.org', 'valid'), result('bob@example.org', 'catch_all')]);

describe('writeResults with the source list', () => {
  it('writes the original rows in order, in the source dialect, with the result columns appended', async () => {
    const path = join(dir, 'semi.csv');
    await writeFile(
      path,
      '\uFEFFname;mail\r\n"Doe; Ann";Ann@Example.org\r\nBob;bob@example.org\r\nAnn again;ann@example.org\r\nNobody;\r\nBad;not-an-address\r\n',
    );
    const source = await openListSource(path);
    const { output, count } = await written({ format: 'csv', results, source });

    expect(output.startsWith('\uFEFF')).toBe(true);
    expect(output).toContain('\r\n');
    const rows = parse(output, { delimiter: ';', bom: true }) as string[][];
    expect(rows[0]).toEqual(['name', 'mail', ...RESULT_HEADER]);
    expect(rows.slice(1).map((row) => row.slice(0, 4))).toEqual([
      ['Doe; Ann', 'Ann@Example.org', 'valid', 'valid because'],
      ['Bob', 'bob@example.org', 'catch_all', 'catch_all because'],
      ['Ann again', 'ann@example.org', 'valid', 'valid because'],
      ['Nobody', '', 'invalid', 'no address in this row'],
      ['Bad', 'not-an-address', 'invalid', expect.any(String)],
    ]);
    expect(rows[1]!.slice(5, -2)).toEqual(CHECK_VALUES);
    // A syntax failure: the code, format false (a finding), every check beyond it blank (never looked at).
    expect(rows[5]!.slice(4, -2)).toEqual(['syntax', 'false', '', '', '', 'unknown', '', '', '', '', '']);
    expect(count).toBe(5);
  });

  it('keeps rows whose address no job covers in place, with empty verdict cells, and counts them', async () => {
    const path = join(dir, 'other-job.csv');
    await writeFile(path, 'email\nann@example.org\ncy@example.org\n\ndee@example.org\n');
    const out = new PassThrough();
    const output = buffer(out);
    const summary = await writeResults(out, { format: 'csv', results, source: await openListSource(path) });
    const empty = RESULT_HEADER.map(() => '');
    expect(parse((await output).toString('utf8'))).toEqual([
      ['email', ...RESULT_HEADER],
      ['ann@example.org', 'valid', 'valid because', 'accepted', ...CHECK_VALUES, '', ''],
      ['cy@example.org', ...empty],
      ['', ...empty],
      ['dee@example.org', ...empty],
    ]);
    expect(summary).toEqual({ written: 4, unmatched: 2, unmatchedLines: [3, 5] });
  });

  it('lines the verdict up under its header whatever the row length: trailing delimiters, short rows, extra fields', async () => {
    const path = join(dir, 'ragged.csv');
    await writeFile(path, 'Name;Email\nAnn;Ann@Example.org;\nBob\nCy;bob@example.org;;\nDee;bad;extra;more\n');
    const { output } = await written({ format: 'csv', results, source: await openListSource(path) });
    const rows = parse(output, { delimiter: ';', relax_column_count: true }) as string[][];
    expect(rows[0]).toEqual(['Name', 'Email', ...RESULT_HEADER]);
    expect(rows[1]).toEqual(['Ann', 'Ann@Example.org', 'valid', 'valid because', 'accepted', ...CHECK_VALUES, '', '']);
    expect(rows[2]!.slice(0, 4)).toEqual(['Bob', '', 'invalid', 'no address in this row']);
    expect(rows[3]).toEqual(['Cy', 'bob@example.org', 'catch_all', 'catch_all because', 'catch_all', ...CHECK_VALUES, '', '']);
    expect(rows[4]!.slice(0, 3)).toEqual(['Dee', 'bad', 'invalid']);
    expect(rows[4]!.slice(2 + RESULT_HEADER.length)).toEqual(['extra', 'more']);
    expect(rows.slice(0, 4).map((row) => row.length)).toEqual([17, 17, 17, 17]);
  });

  it('writes every row alike whether the fast reader copied it or csv-parse took over part way', async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => [`"Name ${i}"`, i % 2 === 0 ? 'Ann@Example.org' : 'bob@example.org', i % 3 === 0 ? '"a, b"' : 'x']);
    const lines = rows.map((row) => row.join(','));
    const cells = (fields: string[], email: string) => [
      ...fields,
      ...(email === 'Ann@Example.org' ? ['valid', 'valid because', 'accepted'] : ['catch_all', 'catch_all because', 'catch_all']),
    ];
    // Quotes a field does not need are dropped on both paths; those it needs are kept.
    const expected = rows.map(([name, email, note]) => `${name!.slice(1, -1)},${email},${note},`);
    // Read by the fast reader to the end; then with a stray quote (relax_quotes' to read) two thirds in.
    const whole = join(dir, 'whole.csv');
    await writeFile(whole, `name,email,note\n${lines.join('\n')}\n`);
    const odd = join(dir, 'odd.csv');
    await writeFile(odd, `name,email,note\n${lines.slice(0, 2_000).join('\n')}\nCy,bob@example.org,5" tall\n${lines.slice(2_000).join('\n')}\n`);
    for (const [path, strayAt] of [
      [whole, -1],
      [odd, 2_000],
    ] as const) {
      const { output, count } = await written({ format: 'csv', results, source: await openListSource(path) });
      const outLines = output.split('\n').slice(1, -1);
      const data = strayAt < 0 ? outLines : [...outLines.slice(0, strayAt), ...outLines.slice(strayAt + 1)];
      expect(data.map((line, i) => line.slice(0, expected[i]!.length))).toEqual(expected);
      const parsed = parse(output, { relax_quotes: true }) as string[][];
      expect(
        parsed
          .slice(1)
          .filter((_, i) => i !== strayAt)
          .map((row) => row.slice(0, 6)),
      ).toEqual(rows.map(([name, email, note]) => cells([name!.slice(1, -1), email!, note === 'x' ? 'x' : 'a, b'], email!)));
      if (strayAt >= 0) expect(parsed[strayAt + 1]!.slice(0, 4)).toEqual(['Cy', 'bob@example.org', '5" tall', 'catch_all']);
      expect(count).toBe(strayAt < 0 ? 3_000 : 3_001);
    }
  });

  it('names the columns of a source without a header', async () => {
    const path = join(dir, 'no-header.csv');
    await writeFile(path, 'Bob,bob@example.org\n');
    const { output } = await written({ format: 'csv', results, source: await openListSource(path) });
    expect((parse(output) as string[][])[0]).toEqual(['column1', 'email', ...RESULT_HEADER]);
  });

  it('filters with --only', async () => {
    const path = join(dir, 'only.csv');
    await writeFile(path, 'email\nann@example.org\nbob@example.org\nbad\n');
    const { output } = await written({ format: 'csv', results, source: await openListSource(path), only: ['catch_all', 'invalid'] });
    expect((parse(output) as string[][]).map((row) => row[0])).toEqual(['email', 'bob@example.org', 'bad']);
  });

  it('writes each address once as NDJSON, in source order, duplicates and empty rows left out', async () => {
    const path = join(dir, 'json.csv');
    await writeFile(path, 'email,n\nbob@example.org,1\nANN@example.org,2\nbob@example.org,3\n,4\n');
    const { output, count } = await written({ format: 'ndjson', results, source: await openListSource(path) });
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as VerificationResult);
    expect(lines.map((line) => [line.email, line.result])).toEqual([
      ['bob@example.org', 'catch_all'],
      ['Ann@Example.org', 'valid'],
    ]);
    expect(Object.keys(lines[0]!)).toEqual(['email', 'result', 'checks', 'reason', 'reasonCode', 'row']);
    expect(lines.map((line) => (line as VerificationResult & { row: number }).row)).toEqual([2, 3]);
    expect(count).toBe(2);
  });
});

describe('writeResults without a source', () => {
  it('writes email, result, reason and the checks as CSV', async () => {
    const { output } = await written({ format: 'csv', results });
    expect(parse(output)).toEqual([
      ['email', ...RESULT_HEADER],
      ['Ann@Example.org', 'valid', 'valid because', 'accepted', ...CHECK_VALUES, '', ''],
      ['bob@example.org', 'catch_all', 'catch_all because', 'catch_all', ...CHECK_VALUES, '', ''],
    ]);
  });

  it('writes a JSON array, empty included', async () => {
    const all = JSON.parse((await written({ format: 'json', results })).output) as VerificationResult[];
    expect(all.map((each) => each.email)).toEqual(['Ann@Example.org', 'bob@example.org']);
    expect(JSON.parse((await written({ format: 'json', results, only: ['risky'] })).output)).toEqual([]);
  });
});
