import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, run } from '../../src/cli/commands/bulk/submit.js';
import { NotAuthenticatedError, UsageError } from '../../src/cli/output/errors.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';

/** `bulk submit`'s flags checked before anything is read or sent, and its run without a token. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-submit-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const options = (...argv: string[]) => parse(parseCommandLine(['bulk', 'submit', ...argv]));

describe('bulk submit: parse', () => {
  it('--max-age: 30 days unless given, 0s allowed, only with --local', async () => {
    expect((await options('list.csv', '--local')).maxAge).toEqual({ raw: '30d', ms: 30 * 86_400_000 });
    expect((await options('list.csv', '--local', '--max-age', '0s')).maxAge).toEqual({ raw: '0s', ms: 0 });
    await expect(options('list.csv', '--max-age', '7d')).rejects.toThrow(/^--max-age needs --local$/);
    await expect(options('list.csv', '--local', '--max-age', 'soon')).rejects.toThrow(/--max-age: "soon" is no duration/);
  });

  it('takes the defaults: precheck on, no waiting, NDJSON on stdout', async () => {
    const parsed = await options('list.csv');
    expect(parsed).toMatchObject({ file: 'list.csv', precheck: true, wait: false, local: false, fresh: false, failOn: { any: [], shares: [] } });
    expect(parsed.plan).toMatchObject({ path: undefined, format: 'ndjson', outageMs: 600_000 });
    expect(parsed.engine.given).toEqual([]);
  });

  it('reads every flag into its option', async () => {
    const output = join(dir, 'cleaned.csv');
    const parsed = await options(
      '-',
      '--local',
      '--no-precheck',
      '--column',
      'mail',
      '--output',
      output,
      '--only',
      'valid',
      '--fail-on',
      'invalid,mailbox_full',
      '--fail-on',
      'unknown=20%',
      '--data-dir',
      dir,
      '--smtp-port',
      '2525',
    );
    expect(parsed).toMatchObject({ file: '-', local: true, precheck: false, column: 'mail', dataDir: dir });
    expect(parsed.failOn).toEqual({ any: ['invalid', 'mailbox_full'], shares: [{ selector: 'unknown', share: 0.2, given: 'unknown=20%' }] });
    expect(parsed.plan).toMatchObject({ path: output, format: 'csv', only: ['valid'] });
    expect(parsed.engine).toMatchObject({ values: { smtpPort: 2525 }, given: ['--smtp-port'] });
  });

  it.each([
    [['--output', 'out.csv'], '--output, --format and --only need --wait (or --local)'],
    [['--only', 'valid'], '--output, --format and --only need --wait (or --local)'],
    [['--fail-on', 'invalid=5%'], '--fail-on needs --wait (or --local)'],
    [['--dns-server', '9.9.9.9', '--helo', 'a.example'], '--dns-server, --helo need --local'],
    [['--wait', '--format', 'xml'], '--format takes csv, json, ndjson; got "xml"'],
    [['--wait', '--output', 'out.txt'], 'cannot tell the format of out.txt from its name'],
    [['--wait', '--wait-timeout', '0'], '--wait-timeout must be more than 0, got "0"'],
    [['--local', '--fail-on', 'nonsense'], '--fail-on'],
    [['--local', '--fail-on', 'invalid=5'], '--fail-on: "invalid=5" needs a share'],
  ])('refuses %j (exit 2)', async (argv, message) => {
    const refused = options('list.csv', ...argv);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(message);
  });
});

describe('bulk submit: run', () => {
  it('reads and describes the list, then wants a token (exit 4) before sending anything', async () => {
    const list = join(dir, 'list.txt');
    await writeFile(list, 'alice@example.com\nbob@example.org\nnot an address\n');
    const { io, stdout, stderr } = memoryIo({ MAILVERIFY_CONFIG_DIR: join(dir, 'config') });
    await expect(run(await options(list), io)).rejects.toThrow(NotAuthenticatedError);
    expect(stderr()).toContain('3 rows, 2 addresses to verify, 0 duplicates, 1 invalid row not sent');
    expect(stdout()).toBe('');
  });
});
