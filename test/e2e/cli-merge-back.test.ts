import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliSandbox } from '../support/cli-sandbox.js';
import { startCliWorld, type CliWorld } from '../support/cli-world.js';
import { MAIL_DOMAIN, MISSING_DOMAIN } from '../support/service-app.js';

/**
 * Merge-back that cannot misalign, and no silent zeros (issue 14): the built CLI against the real
 * service. Outputs are read back as text and split by hand, so that the checks see the cells the
 * way a spreadsheet would, not the way a forgiving parser would repair them.
 */

const ALICE = `alice@${MAIL_DOMAIN}`;
const BOB = `bob@${MAIL_DOMAIN}`;
const CAROL = `carol@${MAIL_DOMAIN}`;
const RESULT_COLUMNS = [
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
const NO_VERDICT = RESULT_COLUMNS.map(() => '');

let setup: CliWorld;
let cli: CliSandbox;
let dir: string;
let file: CliWorld['file'];

beforeAll(async () => {
  setup = await startCliWorld({ mailboxes: [ALICE, BOB], user: 'merge@example.test' });
  ({ cli, dir, file } = setup);
});

afterAll(async () => {
  await setup?.close();
});

/** A `;` CSV without quoted delimiters, split into cells exactly as written; quoted newlines joined back. */
function cells(text: string): string[][] {
  const records: string[] = [];
  let open = false;
  for (const line of text.replace(/\n$/, '').split('\n')) {
    if (open) records[records.length - 1] += `\n${line}`;
    else records.push(line);
    if ((line.split('"').length - 1) % 2 === 1) open = !open;
  }
  return records.map((record) => record.split(';'));
}

describe('merge-back', () => {
  it('keeps ragged rows, blank lines and embedded newlines in place, the verdict under its header', async () => {
    const input = await file(
      'ragged.csv',
      [
        'Name;Email',
        `Ann;${ALICE};`, // a trailing delimiter, as many exports write
        '',
        `"Bob\nSmith";${BOB}`, // a newline inside a quoted field
        `Carol;${CAROL};;`, // two trailing delimiters
        'Dan', // a missing field
        `Eve;${ALICE};note;more`, // fields past the header
        ';',
        '',
      ].join('\n'),
    );
    const output = join(dir, 'ragged-out.csv');
    const run = await cli.run(['bulk', 'submit', input, '--wait', '--output', output]);
    expect(run.code, run.stderr).toBe(0);

    const out = cells(await readFile(output, 'utf8'));
    const verdict = (row: string[]) => row.slice(2, 4);
    expect(out[0]).toEqual(['Name', 'Email', ...RESULT_COLUMNS]);
    expect(out[1]!.slice(0, 2)).toEqual(['Ann', ALICE]);
    expect(verdict(out[1]!)).toEqual(['valid', expect.stringContaining('250')]);
    expect(out[2]).toEqual(['', '', ...NO_VERDICT]);
    expect(out[3]!.slice(0, 2)).toEqual(['"Bob\nSmith"', BOB]);
    expect(out[3]![2]).toBe('valid');
    expect(out[4]!.slice(0, 2)).toEqual(['Carol', CAROL]);
    expect(out[4]![2]).toBe('invalid');
    expect(out[5]!.slice(0, 4)).toEqual(['Dan', '', 'invalid', 'no address in this row']);
    expect(out[6]!.slice(0, 3)).toEqual(['Eve', ALICE, 'valid']);
    expect(out[6]!.slice(2 + RESULT_COLUMNS.length)).toEqual(['note', 'more']);
    expect(out[7]).toEqual(['', '', ...NO_VERDICT]);
    expect(out).toHaveLength(8);
    // Every row but the one with data past the header has exactly the header's cells.
    expect(out.filter((_, index) => index !== 6).map((row) => row.length)).toEqual(Array(7).fill(2 + RESULT_COLUMNS.length));
    for (const row of out.slice(1)) {
      if (row[2] !== '') expect(['valid', 'invalid']).toContain(row[2]);
      if (row[3] !== '') expect(row[5]).toMatch(/^(true|false)$/);
    }
  });

  it('a source edited after submission: a warning naming it, every row kept; --strict exits 2', async () => {
    const input = await file('edited.csv', `name,email\nAnn,${ALICE}\nBob,${BOB}\n`);
    const submit = await cli.run(['bulk', 'submit', input]);
    expect(submit.code, submit.stderr).toBe(0);
    const jobId = submit.stdout.trim();
    // One row added, one changed, after the job was made.
    await writeFile(input, `name,email\nAnn,${ALICE}\nNew,${CAROL}\nBob,${BOB}\nBobby,bobby@${MAIL_DOMAIN}\n`);

    const output = join(dir, 'edited-out.csv');
    const merged = await cli.run(['bulk', 'results', jobId, '--wait', '--output', output]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain(`warning: ${input} changed since it was submitted`);
    expect(merged.stderr).toContain(`2 rows of ${input} (lines 3 and 5) are in none of the jobs: kept with empty verdict columns`);
    const out = (await readFile(output, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    expect(out.map((row) => row.slice(0, 3))).toEqual([
      ['name', 'email', 'result'],
      ['Ann', ALICE, 'valid'],
      ['New', CAROL, ''],
      ['Bob', BOB, 'valid'],
      ['Bobby', `bobby@${MAIL_DOMAIN}`, ''],
    ]);
    expect(out[2]!.slice(2)).toEqual(NO_VERDICT);

    const before = await readFile(output, 'utf8');
    const strict = await cli.run(['bulk', 'results', jobId, '--strict', '--output', output]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain(`${input} changed since it was submitted`);
    expect(await readFile(output, 'utf8')).toBe(before);
  });

  it('--strict refuses (exit 2) a list named with --input that has rows none of the jobs covers, to a file or to stdout', async () => {
    const input = await file('covered.csv', `email\n${ALICE}\n`);
    const submit = await cli.run(['bulk', 'submit', input]);
    expect(submit.code, submit.stderr).toBe(0);
    const jobId = submit.stdout.trim();
    expect((await cli.run(['bulk', 'results', jobId, '--wait', '--output', join(dir, 'covered-out.csv')])).code).toBe(0);

    const other = await file('other.csv', `email\n${ALICE}\n${CAROL}\n`);
    const output = join(dir, 'other-out.csv');
    await writeFile(output, 'yesterday\n');
    const toFile = await cli.run(['bulk', 'results', jobId, '--input', other, '--strict', '--output', output]);
    expect(toFile.code, toFile.stderr).toBe(2);
    expect(toFile.stderr).toContain(`--strict: 1 row(s) of ${other} are in none of the jobs; ${output} is left as it was`);
    expect(await readFile(output, 'utf8')).toBe('yesterday\n');
    const toStdout = await cli.run(['bulk', 'results', jobId, '--input', other, '--strict', '--format', 'csv']);
    expect(toStdout.code, toStdout.stderr).toBe(2);
    expect(toStdout.stderr).toContain(`--strict: 1 row(s) of ${other} are in none of the jobs`);
  });

  it('JSON and NDJSON results carry the source row: the file line', async () => {
    const input = await file('rows.csv', `email,n\n\n${BOB},1\n${ALICE},"two\nlines"\n${BOB},3\n${CAROL},4\n`);
    const run = await cli.run(['bulk', 'submit', input, '--wait', '--format', 'ndjson']);
    expect(run.code, run.stderr).toBe(0);
    const results = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; row: number });
    expect(results.map(({ email, row }) => [email, row])).toEqual([
      [BOB, 3],
      [ALICE, 4],
      [CAROL, 7],
    ]);
  });
});

describe('checks that could not be established', () => {
  it('are blank in CSV, not false, and the reason code says why; JSON keeps the booleans; --only takes codes', async () => {
    setup.world.dns.set('broken.test', { rcode: 'SERVFAIL' });
    const input = await file('established.csv', `email\n${ALICE}\nann@broken.test\nann@${MISSING_DOMAIN}\n`);
    const output = join(dir, 'established-out.csv');
    const run = await cli.run(['bulk', 'submit', input, '--wait', '--output', output]);
    expect(run.code, run.stderr).toBe(0);
    const [header, ...rows] = (await readFile(output, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    expect(header).toEqual(['email', ...RESULT_COLUMNS]);
    const cell = (row: string[], column: string) => row[header!.indexOf(column)];
    const byEmail = new Map(rows.map((row) => [row[0], row]));
    const broken = byEmail.get('ann@broken.test')!;
    // DNS failed: nothing is known of the domain, so its checks are blank, not false.
    expect([cell(broken, 'result'), cell(broken, 'reason_code'), cell(broken, 'format')]).toEqual(['unknown', 'dns_failure', 'true']);
    expect(['domainExists', 'hasMx', 'isKnownProvider', 'isCatchAll'].map((column) => cell(broken, column))).toEqual(['', '', '', '']);
    expect(cell(broken, 'smtpStatus')).toBe('unknown');
    // NXDOMAIN is a finding: false, not blank.
    const missing = byEmail.get(`ann@${MISSING_DOMAIN}`)!;
    expect([cell(missing, 'result'), cell(missing, 'reason_code'), cell(missing, 'domainExists'), cell(missing, 'hasMx')]).toEqual([
      'invalid',
      'domain_not_found',
      'false',
      'false',
    ]);
    const alice = byEmail.get(ALICE)!;
    expect([cell(alice, 'reason_code'), cell(alice, 'domainExists'), cell(alice, 'hasMx'), cell(alice, 'isCatchAll')]).toEqual([
      'accepted',
      'true',
      'true',
      'false',
    ]);
    // The fixtures' service runs without the web check: not checked, so blank.
    expect(cell(alice, 'domainReachable')).toBe('');

    const jobId = (await cli.run(['bulk', 'submit', input])).stdout.trim();
    const json = await cli.run(['bulk', 'results', jobId, '--wait', '--format', 'ndjson', '--only', 'dns_failure,domain_not_found']);
    expect(json.code, json.stderr).toBe(0);
    const results = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; reasonCode: string; checks: Record<string, unknown>; notEstablished?: string[] });
    expect(results.map((result) => [result.email, result.reasonCode])).toEqual([
      ['ann@broken.test', 'dns_failure'],
      [`ann@${MISSING_DOMAIN}`, 'domain_not_found'],
    ]);
    expect(results[0]!.checks).toMatchObject({ domainExists: false, hasMx: false });
    expect(results[0]!.notEstablished).toEqual(expect.arrayContaining(['domainExists', 'hasMx']));
  });

  it('a code that is neither a verdict nor a reason code is refused with exit 2', async () => {
    const run = await cli.run(['bulk', 'results', 'any-job', '--only', 'valid,mailbox_gone']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"mailbox_gone" is neither');
  });
});

describe('no silent zeros', () => {
  it('a column without addresses exits 2 naming the column, the file and the rows read', async () => {
    const input = await file('names.csv', `name,email\nAnn,${ALICE}\nBob,${BOB}\n`);
    const run = await cli.run(['bulk', 'submit', input, '--column', 'name']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`no addresses in column "name" of ${input} (2 rows read)`);
  });

  const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 0x08, 0]), Buffer.alloc(20)]);
  const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`email\r\n${ALICE}\r\n`, 'utf16le')]);
  const utf16be = Buffer.from(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`email\r\n${ALICE}\r\n`, 'utf16le')]).swap16());
  it.each([
    ['gzip', 'list.csv.gz', gzipSync(`email\n${ALICE}\n`), 'a gzip-compressed file', 'gunzip -k'],
    ['zip', 'list.zip', zip, 'a zip archive', 'CSV UTF-8'],
    ['UTF-16 LE', 'le.csv', utf16le, 'UTF-16 LE text', 'save it as UTF-8'],
    ['UTF-16 BE', 'be.csv', utf16be, 'UTF-16 BE text', 'save it as UTF-8'],
  ])('a %s file exits 2 saying what it is and what to do', async (_name, name, content, what, hint) => {
    const input = await file(name, content);
    const run = await cli.run(['bulk', 'submit', input]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const [line, ...rest] = run.stderr.trim().split('\n');
    expect(rest).toEqual([]);
    expect(line).toContain(`${input}: ${what}`);
    expect(line).toContain(hint);
  });

  it('a bad row after blank lines and an embedded newline is reported with its editor line number', async () => {
    const input = await file('lines.csv', `email,note\n\n${ALICE},"two\nlines"\n\n\n${BOB},x\nnot-an-email,y\n`);
    const run = await cli.run(['bulk', 'submit', input]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('line 8 (record 4): "not-an-email"');
  });
});
