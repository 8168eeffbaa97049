import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { startCliWorld, type CliWorld } from '../support/cli-world.js';
import { MAIL_DOMAIN } from '../support/service-app.js';
import { runCli } from '../support/service.js';

/**
 * What a script, a cron job or an agent meets through the built CLI against the real service:
 * NDJSON progress events, a line every 10 s in a log, --quiet, auth's exit code for a token
 * lacking a scope or revoked, and `bulk list`.
 */

const ALICE = `alice@${MAIL_DOMAIN}`;
/** Answered by DNS only after a while, so that a wait has progress to report. */
const SLOW_DOMAIN = 'slow.test';
const SLOW_DNS_MS = 3_000;
/** Another, so that no cached answer makes its job quick. */
const WATCHED_DOMAIN = 'watched.test';
/** Greylisted once, and asked again after more than the 10 s between two log lines. */
const GREYLISTED = `grey@${MAIL_DOMAIN}`;
const RETRY_AFTER = '12s';

let setup: CliWorld;
let cli: CliSandbox;

beforeAll(async () => {
  setup = await startCliWorld({
    mailboxes: [ALICE, GREYLISTED],
    greylist: { times: 1, addresses: [GREYLISTED] },
    user: 'scripts@example.test',
    prepare: (world) => {
      world.dns.set(SLOW_DOMAIN, { delayMs: SLOW_DNS_MS, records: [] });
      world.dns.set(WATCHED_DOMAIN, { delayMs: SLOW_DNS_MS, records: [] });
    },
    serveArgs: ['--dns-timeout', String(3 * SLOW_DNS_MS), '--retry-schedule', RETRY_AFTER],
  });
  cli = setup.cli;
});

afterAll(async () => {
  await setup?.close();
});

type Event = { event?: string; job_id?: string; processed?: number; total?: number; [key: string]: unknown };
const linesOf = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Event);

describe('--json waits as NDJSON events on stdout', () => {
  it('bulk submit --wait --json: progress events, one per change, then the summary as an event of its own', { timeout: 60_000 }, async () => {
    const input = await setup.file('events.txt', `${ALICE}\nsomeone@${SLOW_DOMAIN}\n`);
    const startedAt = Date.now();
    const run = await cli.run(['--json', 'bulk', 'submit', input, '--wait', '--output', `${setup.dir}/events.ndjson`]);
    const seconds = (Date.now() - startedAt) / 1_000;
    expect(run.code, run.stderr).toBe(0);
    const events = linesOf(run.stdout);
    const progress = events.filter((each) => each.event === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    // At most one a second, and never the same state twice in a row.
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    for (const [index, each] of progress.entries()) {
      expect(each).toMatchObject({ job_id: expect.any(String), processed: expect.any(Number), total: 2 });
      if (index > 0) expect(JSON.stringify(each)).not.toBe(JSON.stringify(progress[index - 1]));
    }
    expect(events.at(-1)).toMatchObject({ event: 'summary', jobs: [{ jobId: progress[0]!.job_id, queued: 2 }], total: 2, duplicates: 0, invalid: 0 });
    expect(events.filter((each) => each.event === 'summary')).toHaveLength(1);
    // No spinner, and no progress lines on stderr beside the events.
    expect(run.stderr).not.toMatch(/waiting for job/);
  });

  it('bulk status --watch --json: the same progress events, then a summary event per job', { timeout: 60_000 }, async () => {
    const input = await setup.file('watched.txt', `someone@${WATCHED_DOMAIN}\n`);
    const submit = await cli.run(['bulk', 'submit', input]);
    expect(submit.code, submit.stderr).toBe(0);
    const jobId = submit.stdout.trim();
    const watch = await cli.run(['--json', 'bulk', 'status', jobId, '--watch']);
    expect(watch.code, watch.stderr).toBe(0);
    const events = linesOf(watch.stdout);
    expect(events[0]).toMatchObject({ event: 'progress', job_id: jobId, processed: 0, total: 1, status: 'processing' });
    expect(events.at(-1)).toMatchObject({ event: 'summary', job_id: jobId, processed: 1, total: 1, status: 'completed', progress_percent: 100 });
  });
});

describe('a wait in a log (no terminal, no --json)', () => {
  it('says where it stands in a plain line every 10 s, changed or not, with no escape codes', { timeout: 60_000 }, async () => {
    const input = await setup.file('greylisted.txt', `${GREYLISTED}\n`);
    const run = await cli.run(['bulk', 'submit', input, '--wait', '--output', `${setup.dir}/greylisted.csv`]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((line) => line.includes('waiting for job'));
    // At once, and again 10 s later although nothing changed (the address is asked again after 12 s).
    expect(lines.length, run.stderr).toBeGreaterThanOrEqual(2);
    expect(lines[1]).toMatch(/^mailverify: waiting for job \S+: 0\/1 \(0%\); 1 waiting for their next try \(greylisting\), the next at \d\d:\d\d$/);
    // eslint-disable-next-line no-control-regex
    expect(run.stderr).not.toMatch(/\u001b|\r/);
  });
});

describe('--quiet', () => {
  it('bulk submit --quiet prints nothing at all when all goes well: not even the job id', async () => {
    const input = await setup.file('quiet.txt', `${ALICE}\n`);
    const run = await cli.run(['--quiet', 'bulk', 'submit', input]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('');
  });
});

describe("auth's exit code", () => {
  it('a token lacking a scope exits 4 (not 1), saying which scope', async () => {
    const created = await cli.run(['tokens', 'create', '--name', 'verify only', '--scope', 'verify']);
    expect(created.code, created.stderr).toBe(0);
    const narrow = created.stdout.trim();
    const input = await setup.file('scope.txt', `${ALICE}\n`);
    const run = await cli.run(['bulk', 'submit', input], { env: { MAILVERIFY_TOKEN: narrow } });
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('insufficient_scope');
    expect(run.stderr).toContain('tokens create --scope');
    const json = await cli.run(['--json', 'bulk', 'list'], { env: { MAILVERIFY_TOKEN: narrow } });
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'unauthenticated', exitCode: 4 } });
  });

  it('a revoked token exits 4 too', async () => {
    const created = await cli.run(['--json', 'tokens', 'create', '--name', 'short-lived']);
    expect(created.code, created.stderr).toBe(0);
    const { id, token } = JSON.parse(created.stdout) as { id: string; token: string };
    expect((await cli.run(['tokens', 'revoke', id])).code).toBe(0);
    const run = await cli.run(['whoami'], { env: { MAILVERIFY_TOKEN: token } });
    expect(run.code, run.stderr).toBe(4);
  });
});

describe('bulk list', () => {
  it("lists the account's jobs, newest first, with id, name, status, counts and created; --json too", async () => {
    const input = await setup.file('listed.txt', `${ALICE}\nbob@${MAIL_DOMAIN}\n`);
    const submit = await cli.run(['bulk', 'submit', input, '--wait', '--output', `${setup.dir}/listed.csv`]);
    expect(submit.code, submit.stderr).toBe(0);
    const json = await cli.run(['--json', 'bulk', 'list']);
    expect(json.code, json.stderr).toBe(0);
    const jobs = JSON.parse(json.stdout) as { job_id: string; name: string; status: string; processed: number; total: number; createdAt: string }[];
    expect(jobs.length).toBeGreaterThanOrEqual(2);
    expect(jobs[0]).toMatchObject({ name: 'listed.txt', status: 'completed', processed: 2, total: 2, createdAt: expect.stringMatching(/^\d{4}-/) });
    const created = jobs.map((job) => job.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    // Paged by the service: one a page, each cursor to the next, the same jobs in the same order.
    const pagedIds: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? 'limit=1' : `limit=1&cursor=${cursor}`;
      const reply = await request(`${setup.service.baseUrl}/v1/bulk-verify?${query}`, { headers: { authorization: `Bearer ${setup.token}` } });
      expect(reply.statusCode).toBe(200);
      const page = (await reply.body.json()) as { jobs: { job_id: string }[]; next_cursor: string | null };
      pagedIds.push(...page.jobs.map((job) => job.job_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(pagedIds.slice(0, jobs.length)).toEqual(jobs.map((job) => job.job_id));
    const bad = await request(`${setup.service.baseUrl}/v1/bulk-verify?cursor=nonsense`, { headers: { authorization: `Bearer ${setup.token}` } });
    expect(bad.statusCode).toBe(400);
    await bad.body.dump();
    const human = await cli.run(['bulk', 'list', '--limit', '1']);
    expect(human.stdout).toMatch(new RegExp(`^${jobs[0]!.job_id}  listed\\.txt  completed  2/2  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\n$`));
  });

  it("another account's jobs are not listed", async () => {
    const other = await setup.service.createUser('other-lister@example.test', { credits: 5 });
    const run = await cli.run(['--json', 'bulk', 'list'], { env: { MAILVERIFY_TOKEN: other } });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});

describe('doctor as a client', () => {
  it('with a service set up and no engine flags, checks the service, the token and the balance, not local probing', async () => {
    const run = await cli.run(['--json', 'doctor']);
    const { ok, checks } = JSON.parse(run.stdout) as { ok: boolean; checks: { check: string; status: string; detail: string }[] };
    expect(checks.map((each) => each.check)).toEqual(['service', 'token', 'clock', 'local']);
    expect(checks.find((each) => each.check === 'token')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/signed in as scripts@example\.test, balance \d+/),
    });
    expect(checks.find((each) => each.check === 'local')).toMatchObject({ status: 'skipped' });
    expect(ok, run.stdout).toBe(true);
    expect(run.code, run.stderr).toBe(0);
    // An engine flag asks about verifying here: then this host is probed too.
    const here = await cli.run(['--json', 'doctor', '--helo', 'localhost', '--dns-timeout', '500', '--connect-timeout', '500']);
    const probed = (JSON.parse(here.stdout) as { checks: { check: string }[] }).checks.map((each) => each.check);
    expect(probed).toContain('helo');
  });
});

describe('a newcomer without a service', () => {
  it('is told about --local, by the not-logged-in message and by the top-level --help', async () => {
    const newcomer = await createCliSandbox({ MAILVERIFY_BASE_URL: setup.service.baseUrl });
    const run = await newcomer.run(['verify', ALICE]);
    await newcomer.close();
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('verify --local');
    const help = await runCli(['--help']);
    expect(help.stdout).toContain('--local');
  });
});
