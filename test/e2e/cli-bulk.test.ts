import { watch } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliSandbox } from '../support/cli-sandbox.js';
import { startCliWorld, type CliWorld } from '../support/cli-world.js';
import { MAIL_DOMAIN, MISSING_DOMAIN } from '../support/service-app.js';
import type { RunningService } from '../support/service.js';

/**
 * `bulk submit / status / results`: the built binary against the real service, whose engine asks
 * loopback DNS and SMTP fixtures. Every file the CLI reads or writes is a real file.
 */

const VALID = [`alice@${MAIL_DOMAIN}`, `bob@${MAIL_DOMAIN}`] as const;
/** A domain whose DNS answers only after a while: its jobs stay `processing` long enough to observe. */
const SLOW_DOMAIN = 'slow.test';
const SLOW_DNS_MS = 10_000;
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

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

let setup: CliWorld;
let service: RunningService;
let token: string;
let dir: string;
let cli: CliSandbox;
let file: CliWorld['file'];

beforeAll(async () => {
  setup = await startCliWorld({
    mailboxes: [...VALID],
    user: 'lists@example.test',
    prepare: (world) => world.dns.set(SLOW_DOMAIN, { delayMs: SLOW_DNS_MS, records: [] }),
    // The engine waits for the slow answer rather than give up on it after the default 5 s.
    serveArgs: ['--dns-timeout', String(2 * SLOW_DNS_MS)],
  });
  ({ service, token, dir, cli, file } = setup);
});

afterAll(async () => {
  await setup?.close();
});

async function balance(): Promise<number> {
  const whoami = await cli.run(['whoami', '--json']);
  return (JSON.parse(whoami.stdout) as { balance: number }).balance;
}

describe('bulk submit --wait --output', () => {
  it('merges the results into a messy CSV: original rows in order, duplicates alike, invalid rows not charged', async () => {
    const rows = [
      ['id', 'name', 'E-Mail', 'note'],
      ['1', 'Doe, Alice', 'Alice@Service.test', 'first "quoted" line\r\nsecond line'],
      ['2', 'Bob', 'bob@service.test', 'plain'],
      ['3', 'Carol', 'carol@service.test', 'no such mailbox'],
      ['4', 'Alice again', 'alice@service.test', 'duplicate, other case'],
      ['5', 'Broken', 'not-an-address', 'syntax'],
      ['6', 'Nobody', '', 'no address'],
      ['7', 'Ghost', `ghost@${MISSING_DOMAIN}`, 'NXDOMAIN'],
      ['8', 'Dots', 'two..dots@service.test', 'syntax'],
    ];
    const quote = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
    const body = rows.map((row) => row.map(quote).join(',')).join('\r\n');
    // BOM, CRLF, and blank rows (an empty line and one of only separators) between the data.
    const input = await file('messy.csv', `\uFEFF${body.replace('\r\n2,', '\r\n\r\n,,,\r\n2,')}\r\n`);
    const output = join(dir, 'messy-out.csv');
    const before = await balance();

    const submit = await cli.run(['bulk', 'submit', input, '--wait', '--output', output]);
    expect(submit.code, submit.stderr).toBe(0);
    expect(lines(submit.stdout)).toHaveLength(1);
    expect(submit.stderr).toContain('8 rows, 4 addresses to verify, 1 duplicate, 3 invalid rows not sent');

    const merged = parse(await readFile(output), { bom: true }) as string[][];
    expect(merged[0]).toEqual([...rows[0]!, ...RESULT_COLUMNS]);
    // The blank rows keep their place, as rows of empty cells under every header.
    const blank = Array.from({ length: 4 + RESULT_COLUMNS.length }, () => '');
    expect(merged.slice(2, 4)).toEqual([blank, blank]);
    const out = [merged[0]!, merged[1]!, ...merged.slice(4)];
    expect(out.slice(1).map((row) => row.slice(0, 4))).toEqual(rows.slice(1));
    const verdict = Object.fromEntries(out.slice(1).map((row) => [row[0], row[4]]));
    expect(verdict).toEqual({ '1': 'valid', '2': 'valid', '3': 'invalid', '4': 'valid', '5': 'invalid', '6': 'invalid', '7': 'invalid', '8': 'invalid' });
    expect(out[4]!.slice(4)).toEqual(out[1]!.slice(4));
    expect(out[3]![5]).toContain('5.1.1');
    expect(out[6]![5]).toBe('no address in this row');
    // Charged for alice, bob, carol and ghost only: duplicates and syntax failures are never sent.
    expect(await balance()).toBe(before - 4);
  });

  it('takes plain text, one address per line', async () => {
    const input = await file('plain.txt', `${VALID[0]}\n\ncarol@${MAIL_DOMAIN}\nnot-an-address\n`);
    const output = join(dir, 'plain-out.csv');
    const submit = await cli.run(['bulk', 'submit', input, '--wait', '--output', output]);
    expect(submit.code, submit.stderr).toBe(0);
    const out = parse(await readFile(output)) as string[][];
    expect(out.map((row) => row.slice(0, 2))).toEqual([
      ['email', 'result'],
      [VALID[0], 'valid'],
      ['', ''], // the blank line keeps its place
      [`carol@${MAIL_DOMAIN}`, 'invalid'],
      ['not-an-address', 'invalid'],
    ]);
  });

  it('takes stdin, keeps a copy to merge into later, and prints --json counts', async () => {
    const stdin = `name;mail\nAlice;${VALID[0]}\nBob;${VALID[1]}\nBob twice;${VALID[1].toUpperCase()}\n`;
    const submit = await cli.run(['--json', 'bulk', 'submit', '-'], { stdin });
    expect(submit.code, submit.stderr).toBe(0);
    const summary = JSON.parse(submit.stdout) as { jobs: { jobId: string; queued: number }[]; total: number; duplicates: number; invalid: number };
    expect(summary).toEqual({ jobs: [{ jobId: expect.any(String), queued: 2 }], total: 3, duplicates: 1, invalid: 0 });

    const output = join(dir, 'stdin-out.csv');
    const results = await cli.run(['bulk', 'results', summary.jobs[0]!.jobId, '--wait', '--output', output]);
    expect(results.code, results.stderr).toBe(0);
    const out = parse(await readFile(output), { delimiter: ';' }) as string[][];
    expect(out.map((row) => row.slice(0, 3))).toEqual([
      ['name', 'mail', 'result'],
      ['Alice', VALID[0], 'valid'],
      ['Bob', VALID[1], 'valid'],
      ['Bob twice', VALID[1].toUpperCase(), 'valid'],
    ]);
  });
});

describe('a list over the per-job limit', () => {
  const COUNT = 120_000;
  let jobIds: string[];
  let input: string;

  it('is split into 3 jobs and merged into one output with every row answered', { timeout: 240_000 }, async () => {
    // Mostly a domain that does not exist (answered from one DNS lookup), some real mailboxes: fast and varied.
    const addresses = Array.from({ length: COUNT }, (_, i) => (i % 10 === 0 ? `user${i}@${MAIL_DOMAIN}` : `user${i}@${MISSING_DOMAIN}`));
    input = await file('big.csv', `n,email\n${addresses.map((address, i) => `${i},${address}`).join('\n')}\n`);
    const output = join(dir, 'big-out.csv');
    const submit = await cli.run(['--json', 'bulk', 'submit', input, '--wait', '--output', output]);
    expect(submit.code, submit.stderr).toBe(0);
    // --json --wait: progress events, then the summary as the last event.
    const summary = JSON.parse(submit.stdout.trimEnd().split('\n').at(-1)!) as { event: string; jobs: { jobId: string; queued: number }[]; total: number };
    expect(summary.event).toBe('summary');
    expect(summary.jobs.map((job) => job.queued)).toEqual([50_000, 50_000, 20_000]);
    expect(summary.total).toBe(COUNT);
    jobIds = summary.jobs.map((job) => job.jobId);
    // Sent two at a time, each answer recorded in turn: none lost, in the list's order.
    const state = JSON.parse(await readFile(join(cli.configDir, 'bulk-jobs.json'), 'utf8')) as { submissions: { chunks: { jobId?: string }[] }[] };
    expect(state.submissions.at(-1)!.chunks.map((chunk) => chunk.jobId)).toEqual(jobIds);

    const out = parse(await readFile(output)) as string[][];
    expect(out).toHaveLength(COUNT + 1);
    out.slice(1).forEach((row, i) => {
      expect(row[0]).toBe(String(i));
      expect(row[2]).toBe('invalid'); // no such domain, or no such mailbox at the fixture
    });
  });

  it('with a balance short of the whole list exits 5 before any job is made', async () => {
    const poorToken = await service.createUser('poor@example.test', { credits: 50_000, rateLimit: 1_000 });
    const env = { MAILVERIFY_TOKEN: poorToken };
    const addresses = Array.from({ length: 50_001 }, (_, i) => `user${i}@${MISSING_DOMAIN}`);
    const input = await file('short.txt', `${addresses.join('\n')}\n`);
    const submit = await cli.run(['bulk', 'submit', input], { env });
    expect(submit.code).toBe(5);
    expect(submit.stderr).toContain('balance 50000, 50001 required');
    const whoami = await cli.run(['whoami', '--json'], { env });
    expect((JSON.parse(whoami.stdout) as { balance: number }).balance).toBe(50_000);
  });

  it('leaves the old file or none when the writer is killed mid-write, never half a file', { timeout: 120_000 }, async () => {
    expect(jobIds).toHaveLength(3);
    const output = join(dir, 'killed.csv');
    await writeFile(output, 'the old content\n');
    let sawTempFile = false;
    const run = cli.start(['bulk', 'results', ...jobIds, '--output', output]);
    // Kill as soon as the temp file beside the output appears: the write has begun.
    const watcher = watch(dir, (_event, name) => {
      if (name?.startsWith('.killed.csv.') && !sawTempFile) {
        sawTempFile = true;
        run.child.kill('SIGKILL');
      }
    });
    const result = await run.done;
    watcher.close();
    expect(sawTempFile, result.stderr).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(await readFile(output, 'utf8')).toBe('the old content\n');

    // Not killed, the same command replaces the file whole.
    const rerun = await cli.run(['bulk', 'results', ...jobIds, '--output', output]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(parse(await readFile(output))).toHaveLength(COUNT + 1);
    for (const name of await readdir(dir)) if (name.startsWith('.killed.csv.')) await rm(join(dir, name));
  });
});

interface CuttingProxy {
  url: string;
  /** Bulk submissions that went through it. */
  bulkPosts(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of the service that passes everything through, except that the answers
 * to the first `drop` bulk submissions never arrive: the connection is cut once the service,
 * having done the work, starts to answer.
 */
async function startCuttingProxy(drop: number): Promise<CuttingProxy> {
  const upstream = new URL(service.baseUrl);
  let posts = 0;
  const proxy = net.createServer((client) => {
    const server = net.connect(Number(upstream.port), upstream.hostname);
    let cutAnswer = false;
    client.on('data', (chunk) => {
      if (chunk.toString('latin1').startsWith('POST /v1/bulk-verify')) {
        posts += 1;
        cutAnswer = posts <= drop;
      }
      server.write(chunk);
    });
    server.on('data', (chunk) => {
      if (cutAnswer) client.destroy();
      else client.write(chunk);
    });
    for (const [socket, other] of [
      [client, server],
      [server, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.on('close', () => other.destroy());
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    bulkPosts: () => posts,
    close: () => new Promise((resolve) => proxy.close(() => resolve())),
  };
}

describe('a connection cut after the submit reached the service', () => {
  const proxies: CuttingProxy[] = [];
  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
  });

  async function submitThrough(drop: number, input: string, env: NodeJS.ProcessEnv = {}) {
    const proxy = await startCuttingProxy(drop);
    proxies.push(proxy);
    const result = await cli.run(['--json', 'bulk', 'submit', input], { env: { MAILVERIFY_BASE_URL: proxy.url, ...env } });
    return { result, posts: proxy.bulkPosts() };
  }

  it('is retried with the same Idempotency-Key: one job, one charge', async () => {
    const input = await file('cut.txt', `${VALID[0]}\n${VALID[1]}\ncarol@${MAIL_DOMAIN}\n`);
    const before = await balance();
    const { result, posts } = await submitThrough(1, input);
    expect(result.code, result.stderr).toBe(0);
    expect(posts).toBe(2);
    const summary = JSON.parse(result.stdout) as { jobs: { jobId: string; queued: number }[] };
    expect(summary.jobs).toEqual([{ jobId: expect.any(String), queued: 3 }]);
    expect(await balance()).toBe(before - 3);

    const results = await cli.run(['bulk', 'results', summary.jobs[0]!.jobId, '--wait', '--format', 'ndjson']);
    expect(lines(results.stdout)).toHaveLength(3);
  });

  it('even when the CLI gave up: a re-run sends the recorded key again and is not charged twice', async () => {
    const input = await file('gave-up.txt', `${VALID[0]}\ndave@${MAIL_DOMAIN}\n`);
    const before = await balance();
    const failed = await submitThrough(1, input, { MAILVERIFY_RETRY_MAX_ATTEMPTS: '1' });
    expect(failed.result.code).toBe(1);
    expect(await balance()).toBe(before - 2); // the service did the work and charged for it

    const rerun = await cli.run(['--json', 'bulk', 'submit', input]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await balance()).toBe(before - 2);
    const [job] = (JSON.parse(rerun.stdout) as { jobs: { jobId: string }[] }).jobs;
    const results = await cli.run(['bulk', 'results', job!.jobId, '--wait', '--format', 'ndjson']);
    expect(lines(results.stdout)).toHaveLength(2);
  });
});

describe('errors', () => {
  it('bulk results of a job still processing exits 8; of an unknown job 7', async () => {
    const input = await file('slow.txt', `someone@${SLOW_DOMAIN}\n`);
    const submit = await cli.run(['bulk', 'submit', input]);
    expect(submit.code, submit.stderr).toBe(0);
    const [jobId] = lines(submit.stdout);

    const processing = await cli.run(['bulk', 'results', jobId!]);
    expect(processing.code, processing.stderr).toBe(8);
    expect(processing.stderr).toContain(`mailverify bulk results ${jobId} --wait`);
    const status = await cli.run(['--json', 'bulk', 'status', jobId!]);
    // The job carries the list's name, as the CLI sent it.
    expect(JSON.parse(status.stdout)).toMatchObject({ job_id: jobId, name: basename(input), status: 'processing', total: 1 });
    const human = await cli.run(['bulk', 'status', jobId!]);
    expect(human.stdout).toBe(`job ${jobId} (${basename(input)}): processing, 0/1 (0%)\n`);

    const unknown = await cli.run(['bulk', 'results', 'no-such-job']);
    expect(unknown.code, unknown.stderr).toBe(7);
  });

  it('Ctrl-C during --wait exits 130 and prints the command that resumes', async () => {
    const input = await file('slow-wait.txt', `other@${SLOW_DOMAIN}\n`);
    const output = join(dir, 'slow out.csv');
    const run = cli.start(['bulk', 'submit', input, '--wait', '--output', output]);
    // The job id is printed once the job exists; then the CLI is waiting.
    await new Promise<void>((resolve) => run.child.stdout!.once('data', () => resolve()));
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    const jobId = result.stdout.trim();
    expect(result.stderr).toContain(`mailverify bulk results ${jobId} --wait --output '${output}'`);
  });

  it('an unterminated quote exits 2 naming the file and the line', async () => {
    const input = await file('open-quote.csv', 'email,name\na@service.test,Ann\nb@service.test,"Bob\nc@service.test,Cy\n');
    const submit = await cli.run(['bulk', 'submit', input]);
    expect(submit.code).toBe(2);
    expect(submit.stderr).toContain(`${input}: line 3: unterminated quote`);
  });

  it('a list without an email column exits 2 naming the columns seen, and the flag that names one', async () => {
    const input = await file('no-email.csv', 'name,phone\nAnn,555-0100\n');
    const submit = await cli.run(['bulk', 'submit', input]);
    expect(submit.code).toBe(2);
    expect(submit.stderr).toContain('no email column found; columns seen: "name", "phone"');
    expect(submit.stderr).toContain('--column <name|number>');
  });
});

describe('secrets', () => {
  it('no command of this file printed the token', () => {
    expect(cli.printed().length).toBeGreaterThan(0);
    expect(cli.printed()).not.toContain(token);
  });
});
