import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../../src/engine/index.js';
import type { VerificationResult, Verifier } from '../../src/engine/core/types.js';
import { startJobRunner, type JobRunner, type JobRunnerOptions } from '../../src/server/jobs/runner.js';
import { openSqliteStore } from '../../src/server/store/open/sqlite-store.js';
import type { ClaimRequest, Store, WorkQueue } from '../../src/server/store/store.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { expectedVerdict } from '../support/numbered-addresses.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

// The runner with the real engine, on a real DNS server and real SMTP servers on loopback.

const DOMAINS = ['one.runner.test', 'two.runner.test', 'three.runner.test', 'four.runner.test'];
const HOSTS = ['127.0.0.81', '127.0.0.82', '127.0.0.83', '127.0.0.84'];
/** Slow enough that a 200-address job is still running when the resume test stops its runner. */
const REPLY_DELAY_MS = 25;

const root = mkdtempSync(join(tmpdir(), 'mailverify-runner-'));
let dns: DnsFixture;
let smtpServers: SmtpFixture[];
let verifier: Verifier;
const cleanup: Array<() => unknown> = [];

const silentLog = { info: () => {}, error: () => {} };

/** Even-numbered users have a mailbox, odd ones do not. */
function jobAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `user${index}@${DOMAINS[index % DOMAINS.length]}`);
}

function openStore(dataDir: string): Store {
  const store = openSqliteStore(dataDir);
  cleanup.push(() => store.close());
  return store;
}

function run({ store, ...options }: Partial<JobRunnerOptions> & { store: Store }): JobRunner {
  const runner = startJobRunner({ verifier, retryScheduleMs: [], log: silentLog, ...options, queue: store.work });
  cleanup.unshift(() => runner.stop());
  return runner;
}

/** A job for a fresh user with exactly enough credits. */
async function submit(store: Store, emails: string[]): Promise<{ userId: number; jobId: string }> {
  const user = await store.accounts.createUser({
    email: `owner${Math.random()}@example.test`,
    passwordHash: null,
    balance: emails.length,
    rateLimit: 20,
    rateWindowSeconds: 1,
  });
  const created = await store.jobs.createJob(user.id, emails);
  if (!created.ok) throw new Error('the job was not created');
  return { userId: user.id, jobId: created.jobId };
}

/** The queue's methods bound to it, so that a test can replace one and keep the others. */
function bindAll(queue: WorkQueue): WorkQueue {
  return {
    claimWork: queue.claimWork.bind(queue),
    renewLeases: queue.renewLeases.bind(queue),
    releaseLeases: queue.releaseLeases.bind(queue),
    saveResults: queue.saveResults.bind(queue),
    rescue: queue.rescue.bind(queue),
    wakeDue: queue.wakeDue.bind(queue),
    depth: queue.depth.bind(queue),
  };
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function resultsOf(store: Store, userId: number, jobId: string): Promise<VerificationResult[]> {
  return (await store.jobs.getJobWithResults(userId, jobId))!.results;
}

/** Every item of the job has exactly one stored result, in job order, with the verdict its mailbox deserves. */
async function expectEveryItemAnsweredOnce(store: Store, userId: number, jobId: string, emails: string[]): Promise<void> {
  expect(await store.jobs.getJob(userId, jobId)).toMatchObject({ status: 'completed', total: emails.length, processed: emails.length });
  // No item lacks a result: every position has one stored.
  const stored = await store.jobs.readResults(jobId, { after: -1, limit: emails.length + 1 });
  expect(stored.map((row) => row.position)).toEqual(emails.map((_, index) => index));
  const results = await resultsOf(store, userId, jobId);
  expect(results.map((result) => result.email)).toEqual(emails);
  expect(results.map((result) => result.result)).toEqual(emails.map(expectedVerdict));
}

beforeAll(async () => {
  const port = await freePort(HOSTS);
  const mailboxes = jobAddresses(400).filter((email) => expectedVerdict(email) === 'valid');
  smtpServers = await Promise.all(HOSTS.map((host) => startSmtpServer({ host, port, mailboxes, replyDelayMs: REPLY_DELAY_MS })));
  dns = await startDnsServer(
    Object.fromEntries(
      DOMAINS.flatMap((domain, index) => [
        [domain, { records: [{ type: 'MX' as const, exchange: `mx.${domain}`, priority: 10 }] }],
        [`mx.${domain}`, { records: [{ type: 'A' as const, address: HOSTS[index]! }] }],
      ]),
    ),
  );
  verifier = createVerifier({
    dnsServers: [dns.server],
    smtpPort: port,
    allowPrivateNetworks: true,
    webCheck: false,
    dnsblZones: [],
    retryScheduleMs: [],
    perHostConcurrency: 1,
  });
});

afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

afterAll(async () => {
  await Promise.all(smtpServers?.map((server) => server.close()) ?? []);
  await dns?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the bulk job runner', () => {
  it('stops asking for the items of chunks whose leases it could not renew; another runner finishes them', async () => {
    const store = openStore(mkdtempSync(join(root, 'lost-')));
    const emails = jobAddresses(200);
    const askedSoFar = () => emails.reduce((sum, email) => sum + smtpServers.reduce((each, server) => each + server.rcptCount(email), 0), 0);
    const { userId, jobId } = await submit(store, emails);
    const leaseMs = 600;
    // The store is real; this runner's connection to it breaks after its first claims: renewals
    // fail from the start, and it cannot claim again (or its own claims would hide the loss).
    let claims = 0;
    const broken = {
      ...bindAll(store.work),
      claimWork: async (request: ClaimRequest) => (++claims <= DOMAINS.length ? store.work.claimWork(request) : Promise.reject(new Error('connection lost'))),
      renewLeases: async () => Promise.reject(new Error('connection lost')),
    };
    const stopped: string[] = [];
    const cut = startJobRunner({
      queue: broken,
      verifier,
      retryScheduleMs: [],
      log: { info: (_details, message) => stopped.push(message), error: () => {} },
      leaseMs,
      idlePollMs: 60_000,
    });
    cleanup.unshift(() => cut.stop());
    await waitFor(
      'the runner to give up its chunks',
      async () => stopped.filter((message) => message.startsWith('stopped a chunk')).length === DOMAINS.length,
      5_000,
    );
    // What was in flight at the loss is answered (one RCPT per host's session, counted by the
    // fixture when a loaded machine gets round to it: waited for until the count stands still);
    // nothing after, though the engine had most of the list still to ask.
    let atLoss = askedSoFar();
    for (let quietSince = Date.now(); Date.now() - quietSince < 300;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (askedSoFar() !== atLoss) [atLoss, quietSince] = [askedSoFar(), Date.now()];
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(askedSoFar() - atLoss).toBe(0);
    expect(atLoss).toBeLessThan(emails.length);

    run({ store, idlePollMs: 50 });
    await waitFor('the job to complete', async () => (await store.jobs.getJob(userId, jobId))?.status === 'completed', 20_000);
    await expectEveryItemAnsweredOnce(store, userId, jobId, emails);
  });

  it('verifies every pending item of a job created while it runs, once it is woken', async () => {
    const store = openStore(mkdtempSync(join(root, 'wake-')));
    // With a minute between polls, only wake() can make these jobs finish within the wait.
    const runner = run({ store, idlePollMs: 60_000 });
    const emails = [...jobAddresses(12), 'nobody@missing.runner.test', 'not an address'];
    // Woken in the same tick it started: the wake must not be lost while its first round ends.
    const early = await submit(store, emails);
    runner.wake();
    await waitFor('the first job to complete', async () => (await store.jobs.getJob(early.userId, early.jobId))?.status === 'completed', 10_000);
    // Woken from idle.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const idle = await submit(store, jobAddresses(3));
    runner.wake();
    await waitFor('the second job to complete', async () => (await store.jobs.getJob(idle.userId, idle.jobId))?.status === 'completed', 10_000);

    const results = await resultsOf(store, early.userId, early.jobId);
    expect(results.map((result) => result.email)).toEqual(emails);
    expect(results.map((result) => result.result)).toEqual([...emails.slice(0, 12).map(expectedVerdict), 'invalid', 'invalid']);
    expect(results.every((result) => result.reason.length > 0)).toBe(true);
    expect((await store.accounts.ledger(early.userId)).filter((entry) => entry.reason === 'bulk')).toHaveLength(1);
    await expectEveryItemAnsweredOnce(store, idle.userId, idle.jobId, jobAddresses(3));
  });

  it('resumes a job stopped half-way on a reopened store: each item gets exactly one result, nothing is charged again', async () => {
    const dataDir = mkdtempSync(join(root, 'resume-'));
    const emails = jobAddresses(200);
    const first = openStore(dataDir);
    const { userId, jobId } = await submit(first, emails);

    const runner = run({ store: first, batchSize: 10, flushIntervalMs: 50 });
    await waitFor('some results to be written', async () => (await first.jobs.getJob(userId, jobId))!.processed >= 20);
    await runner.stop();
    const atStop = (await first.jobs.getJob(userId, jobId))!;
    expect(atStop.status).toBe('processing');
    const savedBeforeStop = await resultsOf(first, userId, jobId);
    expect(savedBeforeStop).toHaveLength(atStop.processed);
    // A stopped runner writes nothing more, though the engine may still be answering.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await first.jobs.getJob(userId, jobId))!.processed).toBe(atStop.processed);
    await first.close();
    cleanup.pop();

    // "Restart": a new store on the same file and a new runner, which finds the job by itself.
    const second = openStore(dataDir);
    run({ store: second, idlePollMs: 60_000 });
    await waitFor('the resumed job to complete', async () => (await second.jobs.getJob(userId, jobId))!.status === 'completed');
    await expectEveryItemAnsweredOnce(second, userId, jobId, emails);
    const resultsByEmail = new Map((await resultsOf(second, userId, jobId)).map((result) => [result.email, result]));
    for (const saved of savedBeforeStop) expect(resultsByEmail.get(saved.email)).toEqual(saved);
    expect((await second.accounts.ledger(userId)).map((entry) => entry.reason)).toEqual(['grant', 'bulk']);
    expect((await second.accounts.findUserById(userId))!.balance).toBe(0);
  });

  it('stores an unknown verdict for an address the engine throws on, and finishes the job', async () => {
    const store = openStore(mkdtempSync(join(root, 'faults-')));
    const poisoned = 'poisoned@one.runner.test';
    // Fault injection around the real engine: it fails on one address and answers the rest.
    const faulty: Verifier = {
      verify: (email) => (email === poisoned ? Promise.reject(new Error('resolver exploded')) : verifier.verify(email)),
      async verifyMany(emails, onResult) {
        await verifier.verifyMany(
          [...emails].filter((email) => email !== poisoned),
          onResult,
        );
        throw new Error('one address could not be verified');
      },
    };
    const errors: string[] = [];
    const emails = [...jobAddresses(6), poisoned];
    const { userId, jobId } = await submit(store, emails);
    run({ store, verifier: faulty, log: { info: () => {}, error: (_details, message) => errors.push(message) } });
    await waitFor('the job to complete', async () => (await store.jobs.getJob(userId, jobId))?.status === 'completed');

    const results = await resultsOf(store, userId, jobId);
    expect(results.map((result) => result.result)).toEqual([...emails.slice(0, 6).map(expectedVerdict), 'unknown']);
    expect(results.at(-1)).toMatchObject({ email: poisoned, checks: { smtpStatus: 'unknown' } });
    expect(results.at(-1)!.reason).toMatch(/resolver exploded/);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('writes results in batches of batchSize, progress growing batch by batch', async () => {
    const store = openStore(mkdtempSync(join(root, 'batches-')));
    const emails = jobAddresses(120);
    const { userId, jobId } = await submit(store, emails);
    // Watches the real store's writes (and what a poller would read after each), changing nothing.
    const batches: number[] = [];
    const processedAfterWrite: number[] = [];
    const saveResults = store.work.saveResults.bind(store.work);
    store.work.saveResults = async (results) => {
      const completed = await saveResults(results);
      batches.push(results.length);
      processedAfterWrite.push((await store.jobs.getJob(userId, jobId))!.processed);
      return completed;
    };
    // A flush interval far beyond the test: only full batches and the end of a chunk (one per domain) write.
    run({ store, batchSize: 25, flushIntervalMs: 60_000, idlePollMs: 60_000 });
    await waitFor('the job to complete', async () => (await store.jobs.getJob(userId, jobId))?.status === 'completed');
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(120);
    expect(batches.filter((size) => size === 25).length).toBeGreaterThanOrEqual(3);
    expect(batches.every((size) => size <= 25)).toBe(true);
    expect(batches.length).toBeLessThanOrEqual(4 + 120 / 25);
    expect(processedAfterWrite.at(-1)).toBe(120);
    await expectEveryItemAnsweredOnce(store, userId, jobId, emails);
  });

  it('renews its leases while it works: a second runner on the store never takes a chunk in progress over', async () => {
    const dataDir = mkdtempSync(join(root, 'renew-'));
    const emails = jobAddresses(200);
    const first = openStore(dataDir);
    const { userId, jobId } = await submit(first, emails);
    for (const server of smtpServers) server.reset();
    // Each domain's 50 addresses take seconds at one session per host; the leases last 300 ms
    // and live only as long as their runner renews them.
    const leaseMs = 300;
    run({ store: first, leaseMs, idlePollMs: 50 });
    run({ store: openStore(dataDir), leaseMs, idlePollMs: 50 });
    await waitFor('the job to complete', async () => (await first.jobs.getJob(userId, jobId))?.status === 'completed');
    await expectEveryItemAnsweredOnce(first, userId, jobId, emails);
    const asked = emails.map((email) => smtpServers.reduce((sum, server) => sum + server.rcptCount(email), 0));
    expect(asked.filter((count) => count !== 1)).toEqual([]);
  });

  it('takes up every unfinished job on start, without being woken', async () => {
    const store = openStore(mkdtempSync(join(root, 'start-')));
    const jobs = [await submit(store, jobAddresses(8)), await submit(store, jobAddresses(4).slice(1))];
    run({ store, idlePollMs: 60_000 });
    await waitFor('both jobs to complete', async () =>
      (await Promise.all(jobs.map(({ userId, jobId }) => store.jobs.getJob(userId, jobId)))).every((job) => job?.status === 'completed'),
    );
    await expectEveryItemAnsweredOnce(store, jobs[0]!.userId, jobs[0]!.jobId, jobAddresses(8));
    await expectEveryItemAnsweredOnce(store, jobs[1]!.userId, jobs[1]!.jobId, jobAddresses(4).slice(1));
  });
});
