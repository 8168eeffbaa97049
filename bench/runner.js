/**
 * Job runner (issue 9): the built CLI and service on the engine benchmark's world of many domains
 * with SMTP latency, each figure against a baseline measured in the same run:
 *  - `bulk submit --wait` against `verify --local` on the same list (the runner's overhead on the engine),
 *    and `bulk submit --local` (the same job machinery in process) against both;
 *  - one job's throughput with 2 and 4 `mailverify worker`s behind `serve --no-worker` against 1, on
 *    one PostgreSQL database (lib/postgres.js; SQLite when there is none), on a fixture slow enough
 *    that the per-process session limits, not the CPU, bound it;
 *  - a small job's completion and a single verify's latency while a large job runs, against idle.
 *
 *   node bench/runner.js [--quick] [--part bulk] [--smtp-latency 20] [--dns-latency 5] [--cpu-prof]
 *
 * `--part bulk` measures only the first figures (bulk and local bulk against local), for work on those ratios alone.
 */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileFlags } from './lib/profiling.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { median } from './lib/stats.js';
import { createBenchDatabase } from './lib/postgres.js';
import { WORK_DIR, ensureWorkDir } from './lib/work-dir.js';
import { startWorldFixture } from './engine/world-fixture.js';
import { call, submit, untilCompleted } from './service/api.js';
import { startMailverify, startWorker } from './service/processes.js';

const SECTION = 'runner';
const BIN = fileURLToPath(new URL('../bin/mailverify.js', import.meta.url));
const NEEDED = ['../dist/cli/commands/worker.js', '../dist/server/worker.js'];
const SIZES = {
  full: { list: { addresses: 20_000, domains: 500 }, scaling: { addresses: 8_000, domains: 200 }, samples: 5 },
  quick: { list: { addresses: 2_000, domains: 50 }, scaling: { addresses: 2_000, domains: 50 }, samples: 2 },
};
const SLOW_FACTOR = 5;
/**
 * Scaling is measured where waiting on mail servers, not the CPU, bounds a worker (a 2-core
 * machine runs them all), with no host slower than the others: a domain's chunk is worked by one
 * worker, so one slow domain would bound the job whatever the number of workers.
 */
const SCALING_LATENCY = { smtpLatencyMs: 100, slowFactor: 1 };
const GREYLIST_ARGS = ['--retry-schedule', '1s'];
const WORKER_COUNTS = [2, 4];

const BULK_TARGET = { on: 'ratio', op: '>=', value: 0.95 };
const SCALING_TARGETS = { 2: { on: 'ratio', op: '>=', value: 1.9 }, 4: { on: 'ratio', op: '>=', value: 3.5 } };
const FAIRNESS_TARGET = { on: 'ratio', op: '<=', value: 2 };

function engineArgsFor(fixture) {
  return [...fixture.engineArgs, '--mail-from', 'verify@bench.mailverify.test', ...GREYLIST_ARGS];
}

/** The built CLI, stdout discarded; resolves with its wall time, rejects on a non-zero exit. */
function timeCli(args, { env = {}, stdinFile, nodeFlags = [] } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeFlags, BIN, ...args], {
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: [stdinFile ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    if (stdinFile) createReadStream(stdinFile).pipe(child.stdin);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`mailverify ${args[0]} exited ${code}: ${stderr}`))));
  });
}

/** `bulk submit --wait` of the world's list against `verify --local` of the same list. */
async function bulkAgainstLocal(fixture, dir, cpuProf) {
  const size = fixture.world.addresses.length;
  const { world } = fixture;
  const list = join(dir, 'list.txt');
  await writeFile(list, `${world.addresses.join('\n')}\n`);
  const engineArgs = engineArgsFor(fixture);
  fixture.reset();
  const localMs = await timeCli(['verify', '--local', '--json', '--allow-private-networks', '--no-web-check', ...engineArgs, '-'], {
    stdinFile: list,
    nodeFlags: profileFlags({ cpuProf }, `verify-local-${size}`),
  });
  fixture.reset();
  const service = await startMailverify(engineArgs);
  try {
    const env = { MAILVERIFY_BASE_URL: service.url, MAILVERIFY_TOKEN: service.token, MAILVERIFY_CONFIG_DIR: join(dir, 'config') };
    const bulkMs = await timeCli(['--quiet', 'bulk', 'submit', list, '--wait', '--output', join(dir, 'out.ndjson')], { env });
    fixture.reset();
    // The same list cleaned on this machine: the job machinery in process, no service (a fresh data dir).
    const localEnv = { MAILVERIFY_LOCAL_DATA_DIR: join(dir, 'local-data'), MAILVERIFY_CONFIG_DIR: join(dir, 'config') };
    const localBulkMs = await timeCli(
      ['--quiet', 'bulk', 'submit', list, '--local', '--allow-private-networks', '--no-web-check', ...engineArgs, '--output', join(dir, 'local.ndjson')],
      { env: localEnv, nodeFlags: profileFlags({ cpuProf }, `bulk-local-${size}`) },
    );
    const rate = (ms) => (world.addresses.length / ms) * 1000;
    const named = `${world.addresses.length} addresses at ${world.domains.length} domains`;
    return [
      row({
        section: SECTION,
        metric: `bulk submit --wait vs verify --local, ${named}`,
        unit: 'addr/s',
        ours: rate(bulkMs),
        baselineName: 'verify --local',
        baseline: rate(localMs),
        target: BULK_TARGET,
        raw: { bulkMs, localMs },
      }),
      row({
        section: SECTION,
        metric: `bulk submit --local vs verify --local, ${named}`,
        unit: 'addr/s',
        ours: rate(localBulkMs),
        baselineName: 'verify --local',
        baseline: rate(localMs),
        target: BULK_TARGET,
        raw: { localBulkMs, localMs },
      }),
      row({
        section: SECTION,
        metric: `bulk submit --local vs bulk submit --wait through a service, ${named}`,
        unit: 'addr/s',
        ours: rate(localBulkMs),
        baselineName: 'the service path',
        baseline: rate(bulkMs),
        raw: { localBulkMs, bulkMs },
      }),
    ];
  } finally {
    await service.stop();
  }
}

/** One job through `serve --no-worker` and `count` workers on a fresh store: addresses per second from submission to completion. */
async function jobThroughput(fixture, count, onPostgres) {
  const engineArgs = engineArgsFor(fixture);
  fixture.reset();
  const database = onPostgres ? await createBenchDatabase() : undefined;
  const service = await startMailverify([...engineArgs, '--no-worker'], [], database?.url);
  const workers = [];
  try {
    workers.push(...(await Promise.all(Array.from({ length: count }, () => startWorker(service.storeArgs, engineArgs)))));
    const started = performance.now();
    await untilCompleted(service, await submit(service, fixture.world.addresses));
    return (fixture.world.addresses.length / (performance.now() - started)) * 1000;
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await service.stop();
    await database?.drop();
  }
}

async function workerScaling(sizes, latency) {
  const probe = await createBenchDatabase();
  const onPostgres = !('missing' in probe);
  if (onPostgres) await probe.drop();
  const store = onPostgres ? 'PostgreSQL' : 'SQLite';
  const note = onPostgres ? undefined : `measured on SQLite: ${probe.missing}`;
  const fixture = await startWorldFixture(sizes, { ...latency, ...SCALING_LATENCY });
  try {
    const one = await jobThroughput(fixture, 1, onPostgres);
    const rows = [];
    for (const count of WORKER_COUNTS) {
      const many = await jobThroughput(fixture, count, onPostgres);
      rows.push(
        row({
          section: SECTION,
          metric: `one job, ${count} workers vs 1 (${sizes.addresses} addresses, ${SCALING_LATENCY.smtpLatencyMs} ms SMTP replies, ${store})`,
          unit: 'addr/s',
          ours: many,
          baselineName: '1 worker',
          baseline: one,
          target: SCALING_TARGETS[count],
          note,
        }),
      );
    }
    return rows;
  } finally {
    await fixture.close();
  }
}

/**
 * Median time of a 5-address job at one domain, and of single verifications at hosts the large
 * job also uses; `offset` picks addresses not asked before, so no answer comes from a cache.
 */
async function smallWork(service, world, samples, offset) {
  const normal = world.domains.filter((domain) => domain.kind === 'normal');
  const jobMs = [];
  const verifyMs = [];
  for (let sample = 0; sample < samples; sample++) {
    const domain = normal[(offset + sample) % normal.length];
    const started = performance.now();
    await untilCompleted(
      service,
      await submit(
        service,
        domain.addresses.slice(-5).map(({ email }) => email.replace('@', `.small${offset + sample}@`)),
      ),
    );
    jobMs.push(performance.now() - started);
    const single = performance.now();
    await call(`${service.url}/v1/verify`, {
      method: 'POST',
      token: service.token,
      body: { email: `single${offset + sample}@${normal[(offset + sample + 1) % normal.length].name}` },
    });
    verifyMs.push(performance.now() - single);
  }
  return { jobMs: median(jobMs), verifyMs: median(verifyMs) };
}

async function fairness(fixture, samples) {
  fixture.reset();
  const service = await startMailverify(engineArgsFor(fixture));
  try {
    const idle = await smallWork(service, fixture.world, samples, 0);
    const large = await submit(service, fixture.world.addresses);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const busy = await smallWork(service, fixture.world, samples, samples);
    const progress = await call(`${service.url}/v1/bulk-verify/${large}/progress`, { token: service.token });
    const note = progress.status === 'completed' ? 'the large job ended before the measurement did: not a busy figure' : undefined;
    return [
      row({
        section: SECTION,
        metric: '5-address job while a large job runs vs idle',
        unit: 'ms',
        ours: busy.jobMs,
        baselineName: 'idle',
        baseline: idle.jobMs,
        target: FAIRNESS_TARGET,
        note,
      }),
      row({
        section: SECTION,
        metric: 'single verify at a shared host while a large job runs vs idle',
        unit: 'ms',
        ours: busy.verifyMs,
        baselineName: 'idle',
        baseline: idle.verifyMs,
        target: FAIRNESS_TARGET,
        note,
      }),
    ];
  } finally {
    await service.stop();
  }
}

export async function run({ quick = false, part, smtpLatency = '20', dnsLatency = '5', cpuProf = false } = {}) {
  const missing = NEEDED.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0) return [missingRow(SECTION, 'job runner', BULK_TARGET, `not built yet: ${missing.join(', ')} (npm run build)`)];
  const sizes = quick ? SIZES.quick : SIZES.full;
  const latency = { smtpLatencyMs: Number(smtpLatency), dnsLatencyMs: Number(dnsLatency), slowFactor: SLOW_FACTOR };
  await ensureWorkDir();
  const dir = await mkdtemp(join(fileURLToPath(WORK_DIR), 'runner-'));
  const fixture = await startWorldFixture(sizes.list, latency);
  try {
    const bulk = await bulkAgainstLocal(fixture, dir, cpuProf);
    if (part === 'bulk') return bulk;
    const rows = [...bulk, ...(await fairness(fixture, sizes.samples))];
    return [...rows, ...(await workerScaling(sizes.scaling, latency))];
  } finally {
    await fixture.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await runAlone(import.meta.url, SECTION, run);
