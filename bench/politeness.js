/**
 * Politeness across processes (issue 22): one job whose domains all have their mail at one host,
 * through `serve --no-worker` and 1, 2 or 3 `mailverify worker`s on one PostgreSQL database
 * (lib/postgres.js; SQLite when there is none), each on a fresh database. Behind one egress the
 * per-host limit is shared, so more workers must not mean more sessions at the host, nor more
 * speed there; with a source address each, every worker has a budget of its own.
 *
 *   node bench/politeness.js [--quick] [--smtp-latency 20] [--dns-latency 5]
 */
import { existsSync } from 'node:fs';
import { startDnsFixture } from './fixtures/dns.js';
import { startMxHost } from './fixtures/smtp.js';
import { createBenchDatabase } from './lib/postgres.js';
import { submit, untilCompleted } from './service/api.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { startMailverify, startWorker } from './service/processes.js';

const SECTION = 'politeness';
const NEEDED = ['../dist/cli/commands/worker.js', '../dist/server/verifier/shared-host-slots.js'];
const SIZES = { full: { domains: 40, perDomain: 50 }, quick: { domains: 20, perDomain: 20 } };
const MX_HOST = '127.0.19.61';
const PER_HOST = 4;
const WORKER_COUNTS = [1, 2, 3];
/** Loopback addresses the workers connect from in the last run, one each. */
const SOURCES = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];

/** The host sees at most the per-host limit, however many workers share its egress. */
const PEAK_TARGET = { on: 'ours', op: '<=', value: PER_HOST };

/** One MX host serving every domain (catch-all), and the DNS that sends each domain there. */
async function startOneHostWorld({ domains, perDomain }, latency) {
  const names = Array.from({ length: domains }, (_, index) => `d${index}.politeness.bench`);
  const mx = await startMxHost({
    host: MX_HOST,
    port: 0,
    replyDelayMs: latency.smtpLatencyMs,
    greylist: false,
    domains: new Map(names.map((name) => [name, { catchAll: true, mailboxes: new Set() }])),
  });
  const records = new Map([
    [`mx.politeness.bench`, [{ type: 'A', address: MX_HOST }]],
    ...names.map((name) => [name, [{ type: 'MX', exchange: 'mx.politeness.bench', priority: 10 }]]),
  ]);
  const dns = await startDnsFixture(records, { latencyMs: latency.dnsLatencyMs });
  return {
    mx,
    addresses: names.flatMap((name) => Array.from({ length: perDomain }, (_, index) => `user${index}@${name}`)),
    engineArgs: [
      '--dns-server',
      dns.server,
      '--smtp-port',
      String(mx.port),
      '--helo',
      'bench.mailverify.test',
      '--mail-from',
      'verify@bench.mailverify.test',
      '--retry-schedule',
      'none',
      '--per-host-concurrency',
      String(PER_HOST),
    ],
    close: () => Promise.all([mx.close(), dns.close()]),
  };
}

/** One job through `workerArgs.length` workers on a fresh store: addresses per second and the host's peak of sessions at once. */
async function jobAtOneHost(world, workerArgs, onPostgres) {
  const database = onPostgres ? await createBenchDatabase() : undefined;
  const service = await startMailverify([...world.engineArgs, '--no-worker'], [], database?.url);
  const workers = [];
  try {
    workers.push(...(await Promise.all(workerArgs.map((args) => startWorker(service.storeArgs, [...world.engineArgs, ...args])))));
    world.mx.reset();
    const started = performance.now();
    await untilCompleted(service, await submit(service, world.addresses));
    return { perSecond: (world.addresses.length / (performance.now() - started)) * 1000, peak: world.mx.stats().maxConcurrent };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await service.stop();
    await database?.drop();
  }
}

export async function run({ quick = false, smtpLatency = '20', dnsLatency = '5' } = {}) {
  const missing = NEEDED.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0) return [missingRow(SECTION, 'politeness across processes', PEAK_TARGET, `not built yet: ${missing.join(', ')} (npm run build)`)];
  const probe = await createBenchDatabase();
  const onPostgres = !('missing' in probe);
  if (onPostgres) await probe.drop();
  const store = onPostgres ? 'PostgreSQL' : 'SQLite';
  const note = onPostgres ? undefined : `measured on SQLite: ${probe.missing}`;
  const sizes = quick ? SIZES.quick : SIZES.full;
  const world = await startOneHostWorld(sizes, { smtpLatencyMs: Number(smtpLatency), dnsLatencyMs: Number(dnsLatency) });
  const where = `${world.addresses.length} addresses at ${sizes.domains} domains on one host, ${smtpLatency} ms SMTP replies, ${store}`;
  try {
    const runs = [];
    for (const count of WORKER_COUNTS)
      runs.push({
        label: `${count} worker${count > 1 ? 's' : ''}, one egress`,
        ...(await jobAtOneHost(
          world,
          Array.from({ length: count }, () => []),
          onPostgres,
        )),
      });
    runs.push({
      label: `${SOURCES.length} workers, a source address each`,
      ...(await jobAtOneHost(
        world,
        SOURCES.map((source) => ['--source-address', source]),
        onPostgres,
      )),
    });
    const [one] = runs;
    return runs.flatMap((each, index) => [
      row({
        section: SECTION,
        metric: `${each.label}: throughput vs 1 worker (${where})`,
        unit: 'addr/s',
        ours: each.perSecond,
        baselineName: '1 worker',
        baseline: one.perSecond,
        target: null,
        note,
      }),
      row({
        section: SECTION,
        metric: `${each.label}: most sessions open at the host at once`,
        unit: '',
        ours: each.peak,
        baselineName: 'limit',
        baseline: PER_HOST,
        // With an egress each, the limit holds per address: the host sees up to one limit per worker.
        target: index === runs.length - 1 ? { on: 'ours', op: '<=', value: PER_HOST * SOURCES.length } : PEAK_TARGET,
        note,
      }),
    ]);
  } finally {
    await world.close();
  }
}

await runAlone(import.meta.url, SECTION, run);
