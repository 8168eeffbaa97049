/**
 * Fairness under a backlog (issue 22 item 3): on one `serve` on the embedded SQLite store, then on
 * PostgreSQL (a fresh database on MAILVERIFY_BENCH_DATABASE_URL, else postgres@127.0.0.1:5432), a
 * 10-address job at a host nobody else uses, submitted to completed, median of a few, idle and
 * then while another user's backlog of 4,000, 20,000 or 200,000 addresses is pending (inserted
 * through the store directly, as a quick way to a large backlog; the service's runner picks it up
 * as it would a submitted job). Each backlog on a fresh service and store. Beside each, a single
 * `POST /v1/verify` at the same host, idle and busy, median of five (it must stay as fast as idle).
 * Last, the largest backlog on PostgreSQL with the bulk work in a `worker` process beside
 * `serve --no-worker`, the arrangement that keeps it off the API's process.
 *
 * And greylisting: one job of 2,000 addresses at a domain whose host greylists every first RCPT
 * (the retry after 1 s passes), against one delay plus twice the time of the same job at a domain
 * that does not greylist (every address is asked twice there), on one SQLite `serve`.
 *
 * And a small job of ten addresses at ten hosts while another user's 20,000-address job at five
 * other hosts starts and runs (its addresses wait for those hosts' sessions; the small job's must
 * not wait behind them).
 *
 *   node bench/fairness.js [--quick] [--part starting: only that last case]
 */
import { existsSync } from 'node:fs';
import { createBenchDatabase } from './lib/postgres.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { median } from './lib/stats.js';
import { startWorldFixture } from './engine/world-fixture.js';
import { call, submit, untilCompleted } from './service/api.js';
import { startMailverify, startWorker } from './service/processes.js';

const SECTION = 'fairness';
const NEEDED = ['../dist/server/store/open/open-store.js', '../dist/cli/commands/serve.js'];
const SIZES = { full: { backlogs: [4_000, 20_000, 200_000], samples: 3 }, quick: { backlogs: [4_000], samples: 1 } };
const SMALL_JOB = 10;
const SINGLE_VERIFIES = 5;
/** The API's largest list: the backlog is inserted as jobs of at most this many. */
const JOB_SIZE = 50_000;
/** The runner looks for work it was not woken for every second: by then it has taken the backlog on. */
const TAKEN_ON_MS = 2_000;
const TARGET = { on: 'ratio', op: '<=', value: 2 };
const TARGET_STARTING = { on: 'ratio', op: '<=', value: 1.5 };
const LATENCY = { smtpLatencyMs: 20, dnsLatencyMs: 5, slowFactor: 1 };
const GREYLIST = { addresses: 2_000, retryMs: 1_000 };
/**
 * A small job at hosts a starting large job does not use: the large job's addresses at a few
 * hosts (their sessions wait for those hosts), the small job's one address at a domain of each of
 * ten other hosts.
 */
const STARTING = { largeJob: 20_000, largeHosts: 5, smallHosts: 10, worldDomains: 300 };

/** The small jobs' domain (an ordinary one) and the backlog's domains: none on the small jobs' host. */
function splitWorld(world) {
  const small = world.domains.find((domain) => domain.kind === 'normal');
  const backlog = world.domains.filter((domain) => domain.host && domain.host.ip !== small.host.ip);
  return { small, backlog };
}

/** Median time of `samples` small jobs, each of addresses not asked before. */
async function smallJobs(service, domain, samples, label) {
  const times = [];
  for (let sample = 0; sample < samples; sample++) {
    const emails = Array.from({ length: SMALL_JOB }, (_, index) => `${label}${sample}-${index}@${domain.name}`);
    const started = performance.now();
    await untilCompleted(service, await submit(service, emails));
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Median time of single verifications at `domain`, each of an address not asked before. */
async function singleVerifies(service, domain, label) {
  const times = [];
  for (let sample = 0; sample < SINGLE_VERIFIES; sample++) {
    const started = performance.now();
    await call(`${service.url}/v1/verify`, { method: 'POST', token: service.token, body: { email: `${label}-single${sample}@${domain.name}` } });
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Another user's jobs of `size` addresses in all, written straight into the service's store. */
async function insertBacklog(service, domains, size, databaseUrl) {
  const { openStore } = await import('../dist/server/store/open/open-store.js');
  const store = await openStore({ dataDir: service.dataDir, databaseUrl });
  try {
    const user = await store.accounts.createUser({ email: 'backlog@mailverify.test', passwordHash: null, balance: size, rateLimit: 1, rateWindowSeconds: 1 });
    for (let start = 0; start < size; start += JOB_SIZE) {
      const count = Math.min(JOB_SIZE, size - start);
      const emails = Array.from({ length: count }, (_, index) => `backlog${start + index}@${domains[(start + index) % domains.length].name}`);
      await store.jobs.createJob(user.id, emails);
    }
  } finally {
    await store.close();
  }
}

const metricOf = (backlog, storeName, what = `${SMALL_JOB}-address job`) =>
  `${what} while another user's ${backlog.toLocaleString('en-US')} addresses are pending vs idle (${storeName})`;

/**
 * One backlog size on a fresh service: on SQLite, or on a fresh PostgreSQL database when `postgres`;
 * with `worker`, the jobs are worked by a `worker` process beside `serve --no-worker`.
 */
async function busyAgainstIdle(fixture, backlog, samples, { postgres, worker = false }) {
  const { small, backlog: backlogDomains } = splitWorld(fixture.world);
  const storeName = `${postgres ? 'PostgreSQL' : 'SQLite'}${worker ? ', serve --no-worker + 1 worker' : ''}`;
  const database = postgres ? await createBenchDatabase() : undefined;
  if (database?.missing)
    return [metricOf(backlog, storeName), metricOf(backlog, storeName, 'single POST /v1/verify')].map((metric) =>
      missingRow(SECTION, metric, TARGET, database.missing),
    );
  fixture.reset();
  const { engineArgs } = fixture;
  try {
    const service = await startMailverify(worker ? [...engineArgs, '--no-worker'] : engineArgs, [], database?.url);
    const workers = [];
    try {
      if (worker) workers.push(await startWorker(service.storeArgs, engineArgs));
      await smallJobs(service, small, 1, 'warm');
      const idle = await smallJobs(service, small, samples, 'idle');
      const idleSingle = await singleVerifies(service, small, 'idle');
      await insertBacklog(service, backlogDomains, backlog, database?.url);
      await new Promise((resolve) => setTimeout(resolve, TAKEN_ON_MS));
      const busy = await smallJobs(service, small, samples, 'busy');
      const busySingle = await singleVerifies(service, small, 'busy');
      return [
        row({ section: SECTION, metric: metricOf(backlog, storeName), unit: 'ms', ours: busy, baselineName: 'idle', baseline: idle, target: TARGET }),
        row({
          section: SECTION,
          metric: metricOf(backlog, storeName, 'single POST /v1/verify'),
          unit: 'ms',
          ours: busySingle,
          baselineName: 'idle',
          baseline: idleSingle,
          target: TARGET,
        }),
      ];
    } finally {
      await Promise.all(workers.map((each) => each.stop()));
      await service.stop();
    }
  } finally {
    await database?.drop();
  }
}

/** Domains of the plain kind on distinct hosts, grouped by host. */
function domainsByHost(world) {
  const byHost = new Map();
  for (const domain of world.domains) {
    if (domain.kind !== 'normal') continue;
    byHost.set(domain.host.ip, [...(byHost.get(domain.host.ip) ?? []), domain]);
  }
  return [...byHost.values()];
}

/**
 * The small job of ten addresses at ten hosts, idle and then while another user's 20,000-address
 * job at five other hosts starts (submitted through the API just before; a new user's for each
 * sample) and runs (2 s later).
 */
async function smallJobBesideStartingJob(fixture, samples, { postgres }) {
  const storeName = postgres ? 'PostgreSQL' : 'SQLite';
  const metric = (when) =>
    `${SMALL_JOB}-address job at ${STARTING.smallHosts} hosts while another user's ${STARTING.largeJob.toLocaleString('en-US')}-address job at ${STARTING.largeHosts} others ${when} vs idle (${storeName})`;
  const database = postgres ? await createBenchDatabase() : undefined;
  if (database?.missing) return ['starts', 'runs'].map((when) => missingRow(SECTION, metric(when), TARGET_STARTING, database.missing));
  fixture.reset();
  const hosts = domainsByHost(fixture.world);
  const large = hosts.slice(0, STARTING.largeHosts).flat();
  const small = hosts.slice(STARTING.largeHosts, STARTING.largeHosts + STARTING.smallHosts).map((domains) => domains[0]);
  if (small.length < STARTING.smallHosts) throw new Error(`the world has ${hosts.length} plain hosts, too few`);
  const smallEmails = (label) => Array.from({ length: SMALL_JOB }, (_, index) => `${label}-${index}@${small[index % small.length].name}`);
  const timed = async (service, label) => {
    const started = performance.now();
    await untilCompleted(service, await submit(service, smallEmails(label)), { pollMs: 20 });
    return performance.now() - started;
  };
  const { engineArgs } = fixture;
  try {
    const service = await startMailverify(engineArgs, [], database?.url);
    try {
      await timed(service, 'warm');
      const idleTimes = [];
      for (let sample = 0; sample < samples; sample++) idleTimes.push(await timed(service, `idle${sample}`));
      const idle = median(idleTimes);
      // Other users' (the same user's jobs share its slots, and waiting behind one's own work is
      // fair): each sample just after another user's large job was created, the first on an idle service.
      const startsTimes = [];
      let other;
      let largeJob;
      for (let sample = 0; sample < samples; sample++) {
        other = { url: service.url, token: await service.addUser(`large${sample}@mailverify.test`) };
        const largeEmails = Array.from({ length: STARTING.largeJob }, (_, index) => `large${sample}-${index}@${large[index % large.length].name}`);
        largeJob = await submit(other, largeEmails);
        startsTimes.push(await timed(service, `starts${sample}`));
      }
      const starts = median(startsTimes);
      await new Promise((resolve) => setTimeout(resolve, TAKEN_ON_MS));
      const runsTimes = [];
      for (let sample = 0; sample < samples; sample++) runsTimes.push(await timed(service, `runs${sample}`));
      const progress = await call(`${service.url}/v1/bulk-verify/${largeJob}/progress`, { token: other.token });
      const note = progress.status === 'completed' ? 'the last large job had completed before the last sample' : undefined;
      return [
        row({ section: SECTION, metric: metric('starts'), unit: 'ms', ours: starts, baselineName: 'idle', baseline: idle, target: TARGET_STARTING }),
        row({
          section: SECTION,
          metric: metric('runs'),
          unit: 'ms',
          ours: median(runsTimes),
          baselineName: 'idle',
          baseline: idle,
          target: TARGET_STARTING,
          note,
        }),
      ];
    } finally {
      await service.stop();
    }
  } finally {
    await database?.drop();
  }
}

/** A job at one domain of `kind`, submitted to completed. */
async function jobAt(service, world, kind, label) {
  const domain = world.domains.find((candidate) => candidate.kind === kind);
  const emails = Array.from({ length: GREYLIST.addresses }, (_, index) => `${label}${index}@${domain.name}`);
  const started = performance.now();
  await untilCompleted(service, await submit(service, emails));
  return performance.now() - started;
}

async function greylistedAgainstPlain(fixture) {
  fixture.reset();
  const greylistFlags = ['--retry-schedule', `${GREYLIST.retryMs / 1_000}s`];
  const service = await startMailverify([...fixture.engineArgs, ...greylistFlags]);
  try {
    const plain = await jobAt(service, fixture.world, 'normal', 'plain');
    const greylisted = await jobAt(service, fixture.world, 'greylisted', 'grey');
    return row({
      section: SECTION,
      metric: `${GREYLIST.addresses.toLocaleString('en-US')} addresses at one greylisting domain vs one delay + twice the same job at a plain one (SQLite)`,
      unit: 'ms',
      ours: greylisted,
      baselineName: `${GREYLIST.retryMs / 1000} s + 2 × ${Math.round(plain)} ms`,
      baseline: GREYLIST.retryMs + 2 * plain,
      target: null,
    });
  } finally {
    await service.stop();
  }
}

export async function run({ quick = false, part } = {}) {
  const onlyStarting = part === 'starting';
  const missing = NEEDED.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0) return [missingRow(SECTION, 'small job under a backlog', TARGET, `not built yet: ${missing.join(', ')} (npm run build)`)];
  const { backlogs, samples } = quick ? SIZES.quick : SIZES.full;
  const fixture = await startWorldFixture({ addresses: 2_000, domains: STARTING.worldDomains }, LATENCY);
  try {
    const rows = [];
    if (onlyStarting) {
      for (const postgres of [false, true]) rows.push(...(await smallJobBesideStartingJob(fixture, samples, { postgres })));
      return rows;
    }
    for (const postgres of [false, true]) {
      for (const backlog of backlogs) rows.push(...(await busyAgainstIdle(fixture, backlog, samples, { postgres })));
    }
    rows.push(...(await busyAgainstIdle(fixture, backlogs.at(-1), samples, { postgres: true, worker: true })));
    for (const postgres of [false, true]) rows.push(...(await smallJobBesideStartingJob(fixture, samples, { postgres })));
    rows.push(await greylistedAgainstPlain(fixture));
    return rows;
  } finally {
    await fixture.close();
  }
}

await runAlone(import.meta.url, SECTION, run);
