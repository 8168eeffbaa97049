/**
 * `mailverify bulk submit FILE --local`: the built CLI against a real DNS server and real SMTP
 * servers on loopback, no service running. The fixtures count every RCPT, so "asked once" and
 * "not asked again after a resume" are measured where they happen.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { localFixtureFlags, mxZones } from '../support/engine-fixtures.js';
import { call, jobProgress } from '../support/service-app.js';
import { startService } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

const BIN = fileURLToPath(new URL('../../bin/mailverify.js', import.meta.url));
const QUICK_HOST = '127.0.17.61';
const SLOW_HOST = '127.0.17.62';
const SLOW_REPLY_MS = 40;
/** Greylists each address once, as postgrey does: the first RCPT waits for its retry. */
const GREY_HOST = '127.0.17.63';

let dns: DnsFixture;
let quick: SmtpFixture;
let slow: SmtpFixture;
let grey: SmtpFixture;
let engineArgs: string[];
let dir: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** When SIGINT was sent (`interruptWhen`), and when the process had ended. */
  interruptedAt?: number;
  endedAt: number;
}

/**
 * The built CLI with its own local data and config dirs (`env` replaces them: `HOME` alone leaves the
 * OS default); `interruptWhen` sends SIGINT once it holds (checked every 10 ms).
 */
function run(args: string[], options: { stdin?: string; interruptWhen?: () => boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const own = options.env ?? { MAILVERIFY_LOCAL_DATA_DIR: join(dir, 'data') };
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: dir,
      env: {
        ...process.env,
        NO_COLOR: '1',
        MAILVERIFY_DATA_DIR: '',
        MAILVERIFY_LOCAL_DATA_DIR: '',
        XDG_DATA_HOME: '',
        MAILVERIFY_CONFIG_DIR: join(dir, 'config'),
        MAILVERIFY_TOKEN: '',
        ...own,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let interruptedAt: number | undefined;
    const watch = setInterval(() => {
      if (!options.interruptWhen?.()) return;
      clearInterval(watch);
      interruptedAt = Date.now();
      child.kill('SIGINT');
    }, 10);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(watch);
      resolve({ code, stdout, stderr, interruptedAt, endedAt: Date.now() });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

const valid = (email: string) => /^(ann|bob|p\d*[02468])@/i.test(email);

beforeAll(async () => {
  const port = await freePort([QUICK_HOST, SLOW_HOST, GREY_HOST]);
  const slowMailboxes = Array.from({ length: 400 }, (_, index) => `p${index}@slow.local.test`).filter(valid);
  quick = await startSmtpServer({ host: QUICK_HOST, port, mailboxes: ['ann@quick.local.test', 'bob@quick.local.test'] });
  slow = await startSmtpServer({ host: SLOW_HOST, port, mailboxes: slowMailboxes, replyDelayMs: SLOW_REPLY_MS });
  grey = await startSmtpServer({ host: GREY_HOST, port, mailboxes: ['ann@grey.local.test'], greylist: { times: 1, addresses: ['ann@grey.local.test'] } });
  dns = await startDnsServer({
    ...mxZones('quick.local.test', { 'mx.quick.local.test': QUICK_HOST }),
    ...mxZones('slow.local.test', { 'mx.slow.local.test': SLOW_HOST }),
    ...mxZones('grey.local.test', { 'mx.grey.local.test': GREY_HOST }),
  });
  engineArgs = localFixtureFlags(dns, port);
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-local-'));
  quick.reset();
  slow.reset();
  return () => rm(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await Promise.all([quick?.close(), slow?.close(), grey?.close(), dns?.close()]);
});

describe('bulk submit --local', () => {
  it('cleans a quirky CSV in place: every row with its verdict, a duplicate asked once, no service, no token', async () => {
    // BOM, `;`, CRLF, a quoted newline, a blank line, a duplicate by case, a syntax-invalid row.
    const csv =
      '\uFEFFname;email\r\n"Ann\r\nSmith";ann@quick.local.test\r\nBob;bob@quick.local.test\r\n\r\nCarl;carl@quick.local.test\r\nANN again;ANN@quick.local.test\r\nBroken;not-an-address\r\n';
    await writeFile(join(dir, 'contacts.csv'), csv);
    const result = await run(['bulk', 'submit', 'contacts.csv', ...engineArgs, '--output', 'contacts.cleaned.csv']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/3 addresses: 2 valid, 1 invalid, 0 risky, 0 catch_all, 0 unknown/);
    expect(result.stderr).toContain('wrote 6 rows to contacts.cleaned.csv');
    const cleaned = (await readFile(join(dir, 'contacts.cleaned.csv'), 'utf8')).split('\r\n');
    expect(cleaned[0]).toMatch(/^\uFEFF?name;email;result;reason/);
    const rows = cleaned.slice(1).filter(Boolean);
    // Row order kept, the blank line kept blank, each row's verdict beside it.
    expect(rows[0]).toMatch(/^"Ann\r?$/);
    expect(rows.find((row) => row.startsWith('Smith"'))).toMatch(/;ann@quick\.local\.test;valid;/);
    expect(rows.find((row) => row.startsWith('Bob;'))).toMatch(/;valid;/);
    expect(rows.find((row) => row.startsWith('Carl;'))).toMatch(/;invalid;/);
    expect(rows.find((row) => row.startsWith('ANN again;'))).toMatch(/;valid;/);
    expect(cleaned).toContain('');
    // The fixture counts addresses case-insensitively: Ann's two spellings were asked once in all.
    expect(quick.rcptCount('ann@quick.local.test')).toBe(1);
    // The syntax-invalid row is reported, not sent; no service was ever asked (there is none).
    expect(result.stderr).toMatch(/line 8 \(record 6\): "not-an-address"/);
  });

  it('reads stdin, writes NDJSON with each row, and honours --fail-on', async () => {
    const result = await run(['bulk', 'submit', '-', ...engineArgs, '--format', 'ndjson', '--fail-on', 'mailbox_not_found'], {
      stdin: 'ann@quick.local.test\ncarl@quick.local.test\n',
    });
    expect(result.code, result.stderr).toBe(3);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; result: string; row: number });
    expect(lines.map(({ email, result: verdict, row }) => [email, verdict, row])).toEqual([
      ['ann@quick.local.test', 'valid', 1],
      ['carl@quick.local.test', 'invalid', 2],
    ]);
  });

  it(
    'stops on Ctrl-C with the command that resumes; the same command goes on without asking again; a changed file is a new job',
    { timeout: 120_000 },
    async () => {
      const emails = Array.from({ length: 400 }, (_, index) => `p${index}@slow.local.test`);
      await writeFile(join(dir, 'slow.txt'), `${emails.join('\n')}\n`);
      const args = ['bulk', 'submit', 'slow.txt', ...engineArgs, '--output', 'slow.csv'];
      const stopped = await run(args, { interruptWhen: () => slow.rcptCount() >= 60 });
      expect(stopped.code, stopped.stderr).toBe(130);
      expect(stopped.stderr).toMatch(/resume with: mailverify bulk submit slow\.txt --local .*--output slow\.csv/);
      const askedBefore = new Map(emails.map((email) => [email, slow.rcptCount(email)]));
      expect([...askedBefore.values()].filter((count) => count > 0).length).toBeGreaterThanOrEqual(60);

      const resumed = await run(args);
      expect(resumed.code, resumed.stderr).toBe(0);
      const rows = (await readFile(join(dir, 'slow.csv'), 'utf8')).trim().split('\n').slice(1);
      expect(rows).toHaveLength(400);
      for (const [index, row] of rows.entries()) expect(row.split(',')[1], row).toBe(valid(emails[index]!) ? 'valid' : 'invalid');
      // What was answered and stored before the stop is not asked again (at most the answers in flight at the stop).
      const againAfterResume = emails.filter((email) => askedBefore.get(email)! > 0 && slow.rcptCount(email) > askedBefore.get(email)!);
      expect(againAfterResume.length).toBeLessThanOrEqual(5);
      expect(emails.filter((email) => slow.rcptCount(email) === 0)).toEqual([]);

      await writeFile(join(dir, 'slow.txt'), `${emails.slice(0, 10).join('\n')}\n`);
      const changed = await run(args);
      expect(changed.code, changed.stderr).toBe(0);
      expect(changed.stderr).toMatch(/changed since its last run .*: starting a new job/);
    },
  );

  it('says how many addresses settled unknown for lack of time when their retries run out', { timeout: 60_000 }, async () => {
    grey.reset();
    await writeFile(join(dir, 'hurried.txt'), 'ann@grey.local.test\nann@quick.local.test\n');
    const hurried = await run(['bulk', 'submit', 'hurried.txt', ...engineArgs, '--retry-schedule', 'none', '--output', 'hurried.csv']);
    expect(hurried.code, hurried.stderr).toBe(0);
    expect(hurried.stderr).toMatch(
      /^1 address settled unknown for lack of time: its mail servers still answered "try again later" \(greylisting, throttling\) after the last try of the retry schedule$/m,
    );
    const rows = (await readFile(join(dir, 'hurried.csv'), 'utf8')).trim().split('\n');
    expect(rows[1]).toMatch(/^ann@grey\.local\.test,unknown,.*,greylisted,/);
  });

  it('stops within 2 s at Ctrl-C while an address waits for its greylisting retry, saying so; the same command resumes it', { timeout: 60_000 }, async () => {
    grey.reset();
    await writeFile(join(dir, 'grey.txt'), 'ann@grey.local.test\n');
    // The address waits in the store for its next try: the first Ctrl-C must not wait for it, and the
    // resumed run asks it when due (the due time kept in the data dir).
    const args = ['bulk', 'submit', 'grey.txt', ...engineArgs, '--retry-schedule', '3s', '--output', 'grey.csv'];
    const stopped = await run(args, { interruptWhen: () => grey.rcptCount('ann@grey.local.test') >= 1 });
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.endedAt - stopped.interruptedAt!).toBeLessThan(2_000);
    expect(stopped.stderr).toMatch(/^interrupted: stopping; press Ctrl-C again to quit at once$/m);
    expect(stopped.stderr).toMatch(/resume with: mailverify bulk submit grey\.txt --local /);

    const resumed = await run(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming/);
    expect((await readFile(join(dir, 'grey.csv'), 'utf8')).trim().split('\n')[1]).toMatch(/^ann@grey\.local\.test,valid,/);
  });

  it(
    "keeps to a data dir of its own and works only its own job: a service's pending job on the default data dir is left alone",
    { timeout: 120_000 },
    async () => {
      // HOME at a temporary directory for both: `serve` on the OS default data dir, the local run with no data dir given.
      const home = join(dir, 'home');
      const defaultDataDir = join(home, '.local', 'share', 'mailverify');
      await mkdir(join(home, '.local', 'share'), { recursive: true });
      const homeEnv = { HOME: home };
      const service = await startService({ dataDir: defaultDataDir, env: { ...homeEnv, XDG_DATA_HOME: '' }, engineArgs: ['--no-worker'] });
      try {
        const token = await service.createUser('customer@example.test', { credits: 10 });
        const theirs = ['ann@quick.local.test', 'carl@quick.local.test'];
        const submitted = await call(service.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: theirs } });
        expect(submitted.status).toBe(200);
        const jobId = submitted.body.jobId as string;

        await writeFile(join(dir, 'mine.txt'), 'bob@quick.local.test\n');
        const local = await run(['bulk', 'submit', 'mine.txt', ...engineArgs, '--format', 'ndjson'], { env: homeEnv });
        expect(local.code, local.stderr).toBe(0);
        expect(local.stdout).toContain('"result":"valid"');
        // Its work is in the `local` folder of the OS data dir, private.
        const ownDir = join(defaultDataDir, 'local');
        expect(JSON.parse(await readFile(join(ownDir, 'local-runs.json'), 'utf8'))).toHaveProperty([join(dir, 'mine.txt')]);
        expect((await stat(ownDir)).mode & 0o777).toBe(0o700);

        // Given the service's data dir on purpose, it still works its own job only.
        const given = await run(['bulk', 'submit', 'mine.txt', ...engineArgs, '--data-dir', defaultDataDir, '--format', 'ndjson'], { env: homeEnv });
        expect(given.code, given.stderr).toBe(0);

        expect(await jobProgress(service.baseUrl, jobId, token)).toMatchObject({ status: 'processing', processed: 0 });
        for (const email of theirs) expect(quick.rcptCount(email)).toBe(0);
      } finally {
        await service.stop();
      }
    },
  );

  it(
    "the README's nightly cron line reuses verdicts within --max-age, says so, and with --max-age 0s asks the mail servers again",
    { timeout: 60_000 },
    async () => {
      const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
      const line = readme.split('\n').find((each) => /^0 2 \* \* \* mailverify .*--local/.test(each));
      expect(line, 'the crontab line of --local in README.md').toBeDefined();
      // The line as cron runs it, with this test's list, output and fixtures.
      const args = line!
        .replace(/^0 2 \* \* \* mailverify /, '')
        .split(' ')
        .map((arg) => arg.replace('/data/list.csv', 'list.csv').replace('/data/list.verified.csv', 'list.verified.csv'))
        .concat(engineArgs.slice(1));
      expect(args).toContain('--max-age');
      await writeFile(join(dir, 'list.csv'), 'email\nann@quick.local.test\ncarl@quick.local.test\n');

      const first = await run(args);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toBe('');
      expect(quick.rcptCount('ann@quick.local.test')).toBe(1);
      // Within the line's --max-age: reused, and said when not --quiet.
      const verbose = args.filter((arg) => arg !== '--quiet');
      const second = await run(verbose);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/reused 2 results of an earlier run of .*list\.csv, the oldest \d+s old \(--max-age 20h\)/);
      expect(quick.rcptCount('ann@quick.local.test')).toBe(1);

      // --max-age 0s: every address is asked again.
      const nightly = args.map((arg, index) => (args[index - 1] === '--max-age' ? '0s' : arg));
      const third = await run(nightly);
      expect(third.code, third.stderr).toBe(0);
      expect(quick.rcptCount('ann@quick.local.test')).toBe(2);
      expect(quick.rcptCount('carl@quick.local.test')).toBe(2);
      expect((await readFile(join(dir, 'list.verified.csv'), 'utf8')).trim().split('\n')).toEqual([
        expect.stringMatching(/^email,result,/),
        expect.stringMatching(/^ann@quick\.local\.test,valid,/),
      ]);
    },
  );

  it('never reuses an unknown: the next run asks it again', { timeout: 60_000 }, async () => {
    grey.reset();
    await writeFile(join(dir, 'grey-again.txt'), 'ann@grey.local.test\nbob@quick.local.test\n');
    const args = ['bulk', 'submit', 'grey-again.txt', ...engineArgs, '--output', 'grey-again.csv'];
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    expect((await readFile(join(dir, 'grey-again.csv'), 'utf8')).split('\n')[1]).toMatch(/^ann@grey\.local\.test,unknown,/);
    const second = await run(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/reused 1 result of an earlier run/);
    expect(second.stderr).toMatch(/asking again 1 address: unknown before/);
    expect(grey.rcptCount('ann@grey.local.test')).toBe(2);
    expect((await readFile(join(dir, 'grey-again.csv'), 'utf8')).split('\n')[1]).toMatch(/^ann@grey\.local\.test,valid,/);
  });

  it('bulk local prune deletes the local jobs older than --older-than, their addresses with them, and forgets their lists', { timeout: 60_000 }, async () => {
    await writeFile(join(dir, 'pruned.txt'), 'ann@quick.local.test\n');
    const args = ['bulk', 'submit', 'pruned.txt', ...engineArgs, '--format', 'ndjson'];
    expect((await run(args)).code).toBe(0);
    const runs = async () => JSON.parse(await readFile(join(dir, 'data', 'local-runs.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(await runs())).toEqual([join(dir, 'pruned.txt')]);

    const young = await run(['--json', 'bulk', 'local', 'prune', '--older-than', '1h']);
    expect(young.code, young.stderr).toBe(0);
    expect(JSON.parse(young.stdout)).toMatchObject({ deleted: 0, olderThan: '1h' });
    const all = await run(['bulk', 'local', 'prune', '--older-than', '0s']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toMatch(/^deleted 1 local job made more than 0s ago, with their addresses and results, from /);
    expect(await runs()).toEqual({});
    // Nothing is left to reuse: the same list is asked again.
    const again = await run(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('reused');
    expect(quick.rcptCount('ann@quick.local.test')).toBe(2);
    // A data dir never used: nothing deleted, nothing made.
    const none = await run(['bulk', 'local', 'prune', '--data-dir', join(dir, 'never')]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).toMatch(/^deleted 0 local jobs/);
  });

  it('two local runs at once both keep their resume entries', { timeout: 120_000 }, async () => {
    const lists = ['first.txt', 'second.txt'];
    await writeFile(join(dir, 'first.txt'), 'ann@quick.local.test\ncarl@quick.local.test\n');
    await writeFile(join(dir, 'second.txt'), 'bob@quick.local.test\ndora@quick.local.test\n');
    const both = await Promise.all(lists.map((list) => run(['bulk', 'submit', list, ...engineArgs, '--format', 'ndjson'])));
    for (const each of both) expect(each.code, each.stderr).toBe(0);
    const runs = JSON.parse(await readFile(join(dir, 'data', 'local-runs.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(runs).sort()).toEqual(lists.map((list) => join(dir, list)).sort());
    // Each resumes its own job: nothing is asked again, no new job is started.
    quick.reset();
    for (const list of lists) {
      const again = await run(['bulk', 'submit', list, ...engineArgs, '--format', 'ndjson']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toContain('starting a new job');
    }
    expect(quick.rcptCount()).toBe(0);
  });
});

describe('bulk submit - --local: its copy of stdin', () => {
  /** The CLI's own temp dir (TMPDIR), so that what it leaves there is seen, and only its. */
  const withTmp = async () => {
    const tmp = join(dir, 'tmp');
    await mkdir(tmp);
    return { tmp, env: { MAILVERIFY_LOCAL_DATA_DIR: join(dir, 'data'), TMPDIR: tmp } };
  };

  it('is removed when the run succeeds and when it fails', async () => {
    const { tmp, env } = await withTmp();
    const done = await run(['bulk', 'submit', '-', ...engineArgs, '--format', 'ndjson'], { stdin: 'ann@quick.local.test\n', env });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('ann@quick.local.test');
    // A CSV with no address column: refused after the copy was made.
    const failed = await run(['bulk', 'submit', '-', ...engineArgs], { stdin: 'name,phone\nann,123\nbob,456\n', env });
    expect(failed.code, failed.stderr).toBe(2);
    expect(await readdir(tmp)).toEqual([]);
  });

  it('is removed at Ctrl-C while verifying and while stdin is still being read', { timeout: 60_000 }, async () => {
    const { tmp, env } = await withTmp();
    const emails = Array.from({ length: 200 }, (_, index) => `p${index}@slow.local.test`);
    const verifying = await run(['bulk', 'submit', '-', ...engineArgs, '--format', 'ndjson'], {
      stdin: `${emails.join('\n')}\n`,
      env,
      interruptWhen: () => slow.rcptCount() >= 10,
    });
    expect(verifying.code, verifying.stderr).toBe(130);
    expect(await readdir(tmp)).toEqual([]);

    // stdin left open: the copy is being written when Ctrl-C comes, and nothing else listens for it.
    const child = spawn(process.execPath, [BIN, 'bulk', 'submit', '-', ...engineArgs], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', MAILVERIFY_CONFIG_DIR: join(dir, 'config'), MAILVERIFY_TOKEN: '', ...env },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.stdin.write('ann@quick.local.test\n');
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    while ((await readdir(tmp)).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill('SIGINT');
    expect(await ended).toBe('SIGINT');
    expect(await readdir(tmp)).toEqual([]);
  });
});
