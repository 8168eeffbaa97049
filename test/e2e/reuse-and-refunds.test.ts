/**
 * The result cache and `--refund-unknown`, on `mailverify serve` processes of the built CLI (`npm
 * run build` first) against a real DNS server and a real SMTP fixture that counts every RCPT: what
 * was not asked is measured at the mail host, not inferred from our own bookkeeping.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { call, pollProgress } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

const HOST = '127.0.17.41';
const DOMAINS = ['a.reuse.test', 'b.reuse.test', 'c.reuse.test', 'd.reuse.test'];
/** A domain whose only mailbox is `kate@`: the spelling with U+212A KELVIN SIGN is refused (the fixture offers SMTPUTF8). */
const KATE = 'kate@kelvin.reuse.test';
const KELVIN_KATE = '\u212aate@kelvin.reuse.test';
/** A remote host's pace: every reply of the fixture waits this long (real ones take 50-300 ms). */
const REPLY_MS = 10;
const LIST_SIZE = 5_000;
/** Addresses that are greylisted for ever: an `unknown` at every attempt (retries are off). */
const UNKNOWN_PREFIX = 'unsure';
const isUnknown = (email: string) => email.startsWith(UNKNOWN_PREFIX) || (email.startsWith('refund') && indexOf(email) % 10 === 9);
/** Of the others, the even ones have a mailbox. */
const isValid = (email: string) => !isUnknown(email) && indexOf(email) % 2 === 0;

const list = (prefix: string, size: number) => Array.from({ length: size }, (_, index) => `${prefix}${index}@${DOMAINS[index % DOMAINS.length]}`);
const indexOf = (email: string) => Number(/(\d+)@/.exec(email)![1]);
/** RCPTs the fixture saw for these addresses (the engine's catch-all probes of random ones aside). */
const askedAbout = (emails: readonly string[]) => emails.reduce((sum, email) => sum + smtp.rcptCount(email), 0);

let dns: DnsFixture;
let smtp: SmtpFixture;
let engineArgs: string[];
const running: RunningService[] = [];

beforeAll(async () => {
  const port = await freePort([HOST]);
  const everyList = [...list('reuse', LIST_SIZE), ...list('refund', 200), ...list('scope', 20), ...list(UNKNOWN_PREFIX, 40)];
  smtp = await startSmtpServer({
    host: HOST,
    port,
    replyDelayMs: REPLY_MS,
    mailboxes: [...everyList.filter(isValid), KATE],
    greylist: { times: 1_000_000, addresses: everyList.filter(isUnknown) },
  });
  dns = await startDnsServer(Object.assign({}, ...[...DOMAINS, 'kelvin.reuse.test'].map((domain) => mxZones(domain, { [`mx.${domain}`]: HOST }))));
  engineArgs = ['--dns-server', dns.server, '--smtp-port', String(port), '--helo', 'probe.test', '--mail-from', 'probe@probe.test', '--retry-schedule', 'none'];
});

beforeEach(() => smtp.reset());

afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
});

afterAll(async () => {
  await Promise.all([smtp?.close(), dns?.close()]);
});

async function serve(args: string[] = [], dataDir?: string): Promise<RunningService> {
  const service = await startService({ dataDir, engineArgs: [...engineArgs, ...args] });
  running.push(service);
  return service;
}

/** Submits a list and waits for it; how long that took, from the POST to the progress saying completed. */
async function runJob(service: RunningService, token: string, emails: string[], extra: object = {}): Promise<{ jobId: string; ms: number }> {
  const started = performance.now();
  const reply = await call(service.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails, ...extra } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const jobId = reply.body.jobId as string;
  await pollProgress(service.baseUrl, jobId, token, (progress) => progress.status === 'completed');
  return { jobId, ms: performance.now() - started };
}

interface Result {
  email: string;
  result: string;
  verifiedAt?: string;
}

async function resultsOf(service: RunningService, token: string, jobId: string): Promise<Result[]> {
  const reply = await call(service.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token });
  expect(reply.status).toBe(200);
  return reply.body.results as Result[];
}

const balanceOf = async (service: RunningService, token: string) => (await call(service.baseUrl, 'GET', '/v1/account', { token })).body.balance as number;

describe('the result cache', () => {
  it('answers a list verified lately without asking the mail host; `fresh` and unknowns ask again', { timeout: 180_000 }, async () => {
    const service = await serve();
    const first = await service.createUser('first@example.test', { credits: 3 * LIST_SIZE, rateLimit: 1_000 });
    const other = await service.createUser('other@example.test', { credits: LIST_SIZE + 100, rateLimit: 1_000 });
    const emails = list('reuse', LIST_SIZE);

    const cold = await runJob(service, first, emails);
    expect(askedAbout(emails)).toBe(LIST_SIZE);
    const coldResults = await resultsOf(service, first, cold.jobId);
    expect(coldResults.filter((result) => result.verifiedAt !== undefined)).toEqual([]);

    // Another account, the same list: nothing reaches the mail host, the verdicts are the same.
    smtp.reset();
    const warm = await runJob(service, other, emails);
    expect(askedAbout(emails)).toBe(0);
    const warmResults = await resultsOf(service, other, warm.jobId);
    expect(warmResults.map((result) => [result.email, result.result])).toEqual(coldResults.map((result) => [result.email, result.result]));
    // Found by another account's job: the day it was verified, not the moment.
    const today = `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`;
    for (const result of warmResults) expect(result.verifiedAt, result.email).toBe(today);
    // Charged as ever: the cache changes what is asked, not what is paid.
    expect(await balanceOf(service, other)).toBe(100);
    console.info(
      `result cache: first run ${cold.ms.toFixed(0)} ms, second ${warm.ms.toFixed(0)} ms (${(cold.ms / warm.ms).toFixed(1)}x), RCPTs ${LIST_SIZE} then 0`,
    );

    // `fresh` asks again (a part of the list: the point is that each is asked, not how fast).
    smtp.reset();
    const again = emails.slice(0, 200);
    await runJob(service, first, again, { fresh: true });
    expect(askedAbout(again)).toBe(again.length);

    // An unknown is no answer: asked again every time.
    const unsure = list(UNKNOWN_PREFIX, 40);
    await runJob(service, first, unsure);
    smtp.reset();
    const unsureAgain = await runJob(service, other, unsure);
    expect(askedAbout(unsure)).toBe(unsure.length);
    expect((await resultsOf(service, other, unsureAgain.jobId)).every((result) => result.result === 'unknown' && result.verifiedAt === undefined)).toBe(true);

    // A single verification reuses too, and `fresh` asks.
    smtp.reset();
    const single = await call(service.baseUrl, 'POST', '/v1/verify', { token: first, json: { email: emails[0] } });
    expect(single.body).toMatchObject({ email: emails[0], result: 'valid' });
    expect(single.body.verifiedAt).toEqual(expect.any(String));
    expect(askedAbout([emails[0]!])).toBe(0);
    const asked = await call(service.baseUrl, 'POST', '/v1/verify', { token: first, json: { email: emails[0], fresh: true } });
    expect(asked.body.verifiedAt).toBeUndefined();
    expect(askedAbout([emails[0]!])).toBe(1);
  });

  it(
    'keys verdicts by the address as asked: a Kelvin-sign spelling is not `kate@`; another account sees only the day it was verified',
    { timeout: 60_000 },
    async () => {
      const service = await serve();
      const ann = await service.createUser('ann-kelvin@example.test', { credits: 10, rateLimit: 1_000 });
      const bob = await service.createUser('bob-kelvin@example.test', { credits: 10, rateLimit: 1_000 });
      const verify = async (token: string, email: string) =>
        (await call(service.baseUrl, 'POST', '/v1/verify', { token, json: { email } })).body as unknown as Result;

      expect(await verify(ann, KELVIN_KATE)).toMatchObject({ email: KELVIN_KATE, result: 'invalid' });
      expect(smtp.rcptCount(KELVIN_KATE)).toBe(1);
      // Ann's verdict about the Kelvin spelling is no verdict about kate@: Bob's is asked, and valid.
      const bobsKate = await verify(bob, KATE);
      expect(bobsKate).toMatchObject({ email: KATE, result: 'valid' });
      expect(bobsKate.verifiedAt).toBeUndefined();
      expect(smtp.rcptCount(KATE)).toBe(1);

      // Reused: Ann sees only the day Bob verified kate@; each sees their own verdict's exact time.
      const today = `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`;
      const annsKate = await verify(ann, KATE);
      expect(annsKate).toMatchObject({ result: 'valid', verifiedAt: today });
      expect((await verify(bob, KATE)).verifiedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect((await verify(bob, KATE)).verifiedAt).not.toBe(today);
      expect((await verify(ann, KELVIN_KATE)).verifiedAt).not.toBe(today);
      expect(smtp.rcptCount(KATE)).toBe(1);
      expect(smtp.rcptCount(KELVIN_KATE)).toBe(1);

      // A list holding both spellings holds two addresses, each with its own verdict.
      const job = await call(service.baseUrl, 'POST', '/v1/bulk-verify', { token: bob, json: { emails: [KATE, KELVIN_KATE, 'KATE@Kelvin.Reuse.Test'] } });
      expect(job.body).toMatchObject({ queued: 2 });
      await pollProgress(service.baseUrl, job.body.jobId as string, bob, (progress) => progress.status === 'completed');
      const results = await resultsOf(service, bob, job.body.jobId as string);
      expect(results.map((result) => [result.email, result.result])).toEqual([
        [KATE, 'valid'],
        [KELVIN_KATE, 'invalid'],
      ]);
    },
  );

  it('with --cache-scope account reuses only what the same account found; --cache-ttl 0 reuses nothing', { timeout: 60_000 }, async () => {
    const scoped = await serve(['--cache-scope', 'account']);
    const ann = await scoped.createUser('ann@example.test', { credits: 100, rateLimit: 1_000 });
    const bob = await scoped.createUser('bob@example.test', { credits: 100, rateLimit: 1_000 });
    const emails = list('scope', 20);
    await runJob(scoped, ann, emails);
    smtp.reset();
    await runJob(scoped, bob, emails);
    expect(askedAbout(emails)).toBe(emails.length);
    smtp.reset();
    await runJob(scoped, ann, emails);
    expect(askedAbout(emails)).toBe(0);

    const off = await serve(['--cache-ttl', '0']);
    const carl = await off.createUser('carl@example.test', { credits: 100, rateLimit: 1_000 });
    await runJob(off, carl, emails);
    smtp.reset();
    await runJob(off, carl, emails);
    expect(askedAbout(emails)).toBe(emails.length);
  });
});

describe('--refund-unknown', () => {
  it('gives back the tokens of unknown results when the job completes, once, across a SIGKILL and a restart', { timeout: 120_000 }, async () => {
    const emails = list('refund', 200);
    const known = emails.filter((email) => !isUnknown(email)).length;
    const args = ['--refund-unknown', '--cache-ttl', '0'];
    const service = await serve(args);
    const token = await service.createUser('refund@example.test', { credits: 1_000, rateLimit: 1_000 });
    expect((await call(service.baseUrl, 'GET', '/v1/account', { token })).body).toMatchObject({ refundUnknown: true });

    const reply = await call(service.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails } });
    const jobId = reply.body.jobId as string;
    await pollProgress(service.baseUrl, jobId, token, (progress) => progress.processed >= 50);
    await service.kill('SIGKILL');
    running.splice(running.indexOf(service), 1);

    const again = await serve(args, service.dataDir);
    await pollProgress(again.baseUrl, jobId, token, (progress) => progress.status === 'completed');
    const results = await resultsOf(again, token, jobId);
    expect(results.filter((result) => result.result === 'unknown')).toHaveLength(emails.length - known);
    expect(await balanceOf(again, token)).toBe(1_000 - known);

    // A third start over the completed job refunds nothing more.
    await again.stop();
    running.splice(running.indexOf(again), 1);
    const third = await serve(args, service.dataDir);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await balanceOf(third, token)).toBe(1_000 - known);
  });

  it('refunds a single unknown at once; without the flag an unknown costs its token', { timeout: 60_000 }, async () => {
    const greylisted = list(UNKNOWN_PREFIX, 1)[0]!;
    const refunding = await serve(['--refund-unknown', '--cache-ttl', '0']);
    const ann = await refunding.createUser('single@example.test', { credits: 5, rateLimit: 1_000 });
    expect((await call(refunding.baseUrl, 'POST', '/v1/verify', { token: ann, json: { email: greylisted } })).body).toMatchObject({ result: 'unknown' });
    expect(await balanceOf(refunding, ann)).toBe(5);

    const charging = await serve(['--cache-ttl', '0']);
    const bob = await charging.createUser('single@example.test', { credits: 5, rateLimit: 1_000 });
    expect((await call(charging.baseUrl, 'GET', '/v1/account', { token: bob })).body).toMatchObject({ refundUnknown: false });
    expect((await call(charging.baseUrl, 'POST', '/v1/verify', { token: bob, json: { email: greylisted } })).body).toMatchObject({ result: 'unknown' });
    expect(await balanceOf(charging, bob)).toBe(4);
  });
});
