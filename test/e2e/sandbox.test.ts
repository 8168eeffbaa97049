import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { startService, type RunningService } from '../support/service.js';
import { testTempDir } from '../support/temp-dirs.js';

/**
 * The sandbox (docs/api.md "Sandbox"): test tokens against the real service, and `--local --sandbox`
 * through the built CLI. The engine's only DNS server is a closed port on loopback, so an answer that
 * needed DNS (or SMTP, whose hosts come from DNS) would be `unknown`: a sandbox answer is the
 * sandbox's alone.
 */

/** A loopback port nothing listens on (discard): DNS asked there is refused at once. */
const NO_DNS = '127.0.0.1:9';
const ENGINE = ['--dns-server', NO_DNS, '--retry-schedule', '1s'];

/** Each documented address and what it answers: [address, result, reasonCode]. */
const TABLE: Array<[string, string, string]> = [
  ['valid@example.com', 'valid', 'accepted'],
  ['invalid@example.com', 'invalid', 'mailbox_not_found'],
  ['risky@example.org', 'risky', 'blacklisted'],
  ['catch_all@example.net', 'catch_all', 'catch_all'],
  ['unknown@example.com', 'unknown', 'not_verified'],
  ['greylisted@example.com', 'unknown', 'greylisted'],
  ['disposable@example.com', 'risky', 'disposable'],
  ['role@example.com', 'risky', 'role'],
  ['Invalid+ci-42@Example.COM', 'invalid', 'mailbox_not_found'],
  ['jane.doe@example.com', 'valid', 'accepted'],
];

let service: RunningService;
let live: string;
let test: string;
let cli: CliSandbox;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(method: 'GET' | 'POST' | 'DELETE', path: string, token: string, body?: unknown): Promise<Answer> {
  const response = await request(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const balanceOf = async (token: string) => (await call('GET', '/v1/account', token)).body.balance;

beforeAll(async () => {
  service = await startService({ engineArgs: ENGINE });
  live = await service.createUser('sandbox@example.test', { credits: 5, rateLimit: 1_000 });
  const created = await call('POST', '/v1/tokens', live, { name: 'ci', test: true });
  expect(created.status).toBe(201);
  test = created.body.token as string;
  cli = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: live, MAILVERIFY_DNS_SERVERS: NO_DNS });
});

afterAll(async () => {
  await cli?.close();
  await service?.stop();
});

describe('a test token against the service', () => {
  it('is an mv_test_ token, listed as a test token, that makes only test tokens', async () => {
    expect(test).toMatch(/^mv_test_[0-9a-f]{64}$/);
    const listed = (await call('GET', '/v1/tokens', live)).body.tokens as Array<{ name: string; test: boolean }>;
    expect(listed.map(({ name, test: isTest }) => [name, isTest])).toEqual([
      [expect.any(String), false],
      ['ci', true],
    ]);
    const escalation = await call('POST', '/v1/tokens', test, { name: 'live from test' });
    expect(escalation.status).toBe(403);
    expect(escalation.body).toMatchObject({ code: 'beyond_token_grant', beyondGrant: ['live'] });
    const again = await call('POST', '/v1/tokens', test, { name: 'another test', test: true });
    expect(again.status).toBe(201);
    expect(again.body.token).toMatch(/^mv_test_/);
  });

  it('verifies invalid@example.com as invalid with no DNS server reachable, and charges nothing', async () => {
    const before = await balanceOf(live);
    const answer = await call('POST', '/v1/verify', test, { email: 'invalid@example.com' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ email: 'invalid@example.com', result: 'invalid', reasonCode: 'mailbox_not_found', sandbox: true });
    expect(answer.body.checks).toMatchObject({ format: true, smtpStatus: 'invalid' });
    expect(await balanceOf(live)).toBe(before);
    // The same address with the live token asks the (unreachable) DNS server: proof the answer above came from no server.
    const real = await call('POST', '/v1/verify', live, { email: 'invalid@example.com' });
    expect(real.body).toMatchObject({ result: 'unknown', reasonCode: 'dns_failure' });
    expect(real.body).not.toHaveProperty('sandbox');
  });

  it('answers every documented address by its local part, at any domain', async () => {
    for (const [email, result, reasonCode] of TABLE) {
      const answer = await call('POST', '/v1/verify', test, { email });
      expect([email, answer.body.result, answer.body.reasonCode, answer.body.sandbox]).toEqual([email, result, reasonCode, true]);
    }
  });

  it('keeps live jobs and sandbox jobs apart: each is a 404 to the other kind of token', async () => {
    const liveJob = (await call('POST', '/v1/bulk-verify', live, { emails: ['someone@example.com'] })).body.jobId as string;
    const testJob = (await call('POST', '/v1/bulk-verify', test, { emails: ['valid@example.com'] })).body.jobId as string;
    for (const [token, jobId] of [
      [test, liveJob],
      [live, testJob],
    ] as const) {
      for (const path of [`/v1/bulk-verify/${jobId}/progress`, `/v1/bulk-verify/${jobId}`]) {
        const answer = await call('GET', path, token);
        expect([path, answer.status, answer.body.code]).toEqual([path, 404, 'not_found']);
      }
      expect((await call('DELETE', `/v1/bulk-verify/${jobId}`, token)).status).toBe(404);
    }
    expect((await call('GET', `/v1/bulk-verify/${liveJob}/progress`, live)).status).toBe(200);
    expect((await call('GET', `/v1/bulk-verify/${testJob}/progress`, test)).status).toBe(200);
    // Listed apart too, a full page of its own kind each: the newest job is the other kind's.
    for (const [token, jobId] of [
      [live, liveJob],
      [test, testJob],
    ] as const) {
      const listed = await call('GET', '/v1/bulk-verify?limit=1', token);
      expect((listed.body.jobs as { job_id: string }[]).map((job) => job.job_id)).toEqual([jobId]);
    }
  });

  it('settles greylisted@ valid at its first retry in a bulk job, charging nothing', async () => {
    const before = await balanceOf(live);
    const emails = TABLE.map(([email]) => email);
    const submitted = await call('POST', '/v1/bulk-verify', test, { emails });
    expect(submitted.body.queued).toBe(emails.length);
    const jobId = submitted.body.jobId as string;
    let sawWaiting = false;
    for (const started = Date.now(); Date.now() - started < 20_000;) {
      const progress = await call('GET', `/v1/bulk-verify/${jobId}/progress`, test);
      if (progress.body.waiting === 1) sawWaiting = true;
      if (progress.body.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const job = await call('GET', `/v1/bulk-verify/${jobId}`, test);
    expect(job.body.status).toBe('completed');
    const results = job.body.results as Array<Record<string, unknown>>;
    const byEmail = new Map(results.map((result) => [result.email, result]));
    expect(byEmail.get('greylisted@example.com')).toMatchObject({ result: 'valid', reasonCode: 'accepted', sandbox: true });
    expect(byEmail.get('greylisted@example.com')).not.toHaveProperty('nextAttemptAt');
    expect(sawWaiting).toBe(true);
    for (const [email, result, reasonCode] of TABLE.filter(([email]) => !email.startsWith('greylisted@'))) {
      expect(byEmail.get(email)).toMatchObject({ result, reasonCode, sandbox: true });
    }
    expect(await balanceOf(live)).toBe(before);
  });

  it('is made by `tokens create --test` and shown as such by `tokens list`', async () => {
    const made = await cli.run(['tokens', 'create', '--name', 'from cli', '--test']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^mv_test_[0-9a-f]{64}\n$/);
    expect(made.stderr).toContain('a test token');
    const listed = await cli.run(['tokens', 'list']);
    expect(listed.stdout).toMatch(/from cli {2}test {2}verify,bulk,results,account/);
  });
});

describe('--local --sandbox', () => {
  it('verify gives the service’s answers offline', async () => {
    const emails = TABLE.map(([email]) => email);
    const run = await cli.run(['verify', '--local', '--sandbox', '--json', ...emails]);
    expect(run.code, run.stderr).toBe(0);
    const local = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const served = await Promise.all(emails.map(async (email) => (await call('POST', '/v1/verify', test, { email })).body));
    expect(local).toEqual(served);
  });

  it('verify refuses --sandbox without --local', async () => {
    const run = await cli.run(['verify', '--sandbox', 'valid@example.com']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('tokens create --test');
  });

  it('bulk submit settles greylisted@ valid at its first retry, and a real run of the list resumes none of it', async () => {
    const dir = testTempDir('sandbox-local');
    const list = join(dir, 'list.csv');
    writeFileSync(list, `email,name\n${TABLE.map(([email], at) => `${email},n${at}`).join('\n')}\n`);
    const output = join(dir, 'out.csv');
    const args = ['bulk', 'submit', list, '--local', '--sandbox', '--retry-schedule', '1s', '--output', output, '--data-dir', join(dir, 'data')];
    const run = await cli.run(args);
    expect(run.code, run.stderr).toBe(0);
    const rowsOf = async (file: string) => parse(await readFile(file, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    const verdicts = (await rowsOf(output)).map((row) => [row.email, row.result, row.reason_code]);
    expect(verdicts).toEqual(
      TABLE.map(([email, result, reasonCode]) => (email.startsWith('greylisted@') ? [email, 'valid', 'accepted'] : [email, result, reasonCode])),
    );
    // A real run of the same list resumes nothing of the sandbox's: it asks the (unreachable) DNS server.
    const real = join(dir, 'real.csv');
    const again = await cli.run(['bulk', 'submit', list, '--local', '--retry-schedule', '1s', '--output', real, '--data-dir', join(dir, 'data')]);
    expect(again.stderr).not.toContain('resuming');
    const invalidRow = (await rowsOf(real)).find((row) => row.email === 'invalid@example.com');
    expect(invalidRow?.result).toBe('unknown');
  });
});
