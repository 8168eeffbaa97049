/**
 * Scale-out: one 10,000-address job through `serve --no-worker` and 1, 2 or 3 `mailverify worker`s
 * on one PostgreSQL database, each worker with an egress address of its own (`--source-address`),
 * so that the per-host session limits grow with the workers and what is left to bound them is the
 * CPU each address costs. Beside the speed-ups, where that CPU goes: the CPU-seconds per 1,000
 * addresses of the workers, of `serve`, of PostgreSQL (every process of the server) and of this
 * process (the world's DNS and mail servers), read from /proc before submission and at completion.
 *
 *   node bench/scale-out.js [--quick] [--part 1] [--smtp-latency 20] [--dns-latency 5] [--cpu-prof]
 *
 * With --cpu-prof each worker and `serve` write a profile (bench/profile-summary.js reads them);
 * `--part 1` measures one worker only (for profiling, with no speed-up to report).
 */
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createBenchDatabase } from './lib/postgres.js';
import { profileFlags } from './lib/profiling.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { startWorldFixture } from './engine/world-fixture.js';
import { submit, untilCompleted } from './service/api.js';
import { startMailverify, startWorker } from './service/processes.js';

const SECTION = 'scale-out';
const NEEDED = ['../dist/cli/commands/worker.js', '../dist/server/worker.js'];
const SIZES = { full: { addresses: 10_000, domains: 200 }, quick: { addresses: 1_000, domains: 40 } };
/** Each worker's own egress: loopback addresses the world's hosts (127.100+.x.y) can answer. */
const SOURCES = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
const TARGETS = { 2: { on: 'ratio', op: '>=', value: 1.6 }, 3: { on: 'ratio', op: '>=', value: 1.75 } };
const TICKS_PER_SECOND = 100;

/** CPU-seconds (user + system) a process has spent so far, from /proc; 0 once it is gone. */
async function cpuSeconds(pid) {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The CPU-seconds of every PostgreSQL server process on this machine (the bench's server is the only one). */
async function postgresSeconds() {
  let total = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === 'postgres') total += await cpuSeconds(entry);
  }
  return total;
}

/** The whole machine's busy and idle CPU-seconds so far, from /proc/stat: how near the job came to using every core. */
async function machineSeconds() {
  const [, ...ticks] = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks;
  return { busy: (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND, idle: (idle + iowait) / TICKS_PER_SECOND };
}

/** Every process's CPU-seconds at one moment, by part. */
async function snapshot(service, workers) {
  const usage = process.cpuUsage();
  return {
    machine: await machineSeconds(),
    workers: (await Promise.all(workers.map((worker) => cpuSeconds(worker.pid)))).reduce((a, b) => a + b, 0),
    serve: await cpuSeconds(service.pid),
    postgres: await postgresSeconds(),
    fixture: (usage.user + usage.system) / 1e6,
  };
}

/** One job through `count` workers on a fresh database: its speed and the CPU each part spent on it. */
async function measure(fixture, count, { cpuProf }) {
  fixture.reset();
  const engineArgs = [...fixture.engineArgs, '--mail-from', 'verify@bench.mailverify.test', '--retry-schedule', '1s'];
  const database = await createBenchDatabase();
  const service = await startMailverify([...engineArgs, '--no-worker'], profileFlags({ cpuProf }, `scale-out-serve-${count}w`), database.url);
  const workers = [];
  try {
    for (let index = 0; index < count; index++) {
      const nodeFlags = profileFlags({ cpuProf }, `scale-out-worker-${count}w-${index + 1}`);
      workers.push(await startWorker(service.storeArgs, [...engineArgs, '--source-address', SOURCES[index]], nodeFlags));
    }
    const before = await snapshot(service, workers);
    const started = performance.now();
    await untilCompleted(service, await submit(service, fixture.world.addresses));
    const seconds = (performance.now() - started) / 1000;
    const after = await snapshot(service, workers);
    const perThousand = (part) => ((after[part] - before[part]) / fixture.world.addresses.length) * 1000;
    const busy = after.machine.busy - before.machine.busy;
    return {
      rate: fixture.world.addresses.length / seconds,
      busyShare: busy / (busy + after.machine.idle - before.machine.idle),
      cpu: { workers: perThousand('workers'), serve: perThousand('serve'), postgres: perThousand('postgres'), fixture: perThousand('fixture') },
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await service.stop();
    await database.drop();
  }
}

function cpuRows(count, { cpu, busyShare }, sizes) {
  const total = cpu.workers + cpu.serve + cpu.postgres;
  const parts = { [`${count === 1 ? 'the worker' : `${count} workers`}`]: cpu.workers, serve: cpu.serve, PostgreSQL: cpu.postgres };
  return [
    row({
      section: SECTION,
      metric: `the machine's CPU busy while the job ran, ${count} worker${count === 1 ? '' : 's'} (every process, all cores)`,
      unit: '%',
      ours: busyShare * 100,
      baselineName: 'all cores',
      baseline: 100,
    }),
    ...Object.entries(parts).map(([part, seconds]) =>
      row({
        section: SECTION,
        metric: `CPU per 1,000 addresses, ${count} worker${count === 1 ? '' : 's'}: ${part} (${sizes.addresses} addresses)`,
        unit: 's',
        ours: seconds,
        baselineName: 'worker + serve + PostgreSQL',
        baseline: total,
      }),
    ),
    row({
      section: SECTION,
      metric: `CPU per 1,000 addresses, ${count} worker${count === 1 ? '' : 's'}: the world's DNS and mail servers (not ours)`,
      unit: 's',
      ours: cpu.fixture,
      baselineName: 'worker + serve + PostgreSQL',
      baseline: total,
    }),
  ];
}

export async function run({ quick = false, part, smtpLatency = '20', dnsLatency = '5', cpuProf = false } = {}) {
  const missing = NEEDED.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0) return [missingRow(SECTION, 'scale-out', TARGETS[2], `not built yet: ${missing.join(', ')} (npm run build)`)];
  const probe = await createBenchDatabase();
  if ('missing' in probe) return [missingRow(SECTION, 'scale-out on PostgreSQL', TARGETS[2], probe.missing)];
  await probe.drop();
  const sizes = quick ? SIZES.quick : SIZES.full;
  const fixture = await startWorldFixture(sizes, { smtpLatencyMs: Number(smtpLatency), dnsLatencyMs: Number(dnsLatency), slowFactor: 1 });
  try {
    const one = await measure(fixture, 1, { cpuProf });
    const rows = cpuRows(1, one, sizes);
    if (part === '1') return rows;
    for (const count of [2, 3]) {
      const many = await measure(fixture, count, { cpuProf });
      rows.push(
        row({
          section: SECTION,
          metric: `one job, ${count} workers with a source address each vs 1 (${sizes.addresses} addresses, ${smtpLatency} ms SMTP replies, PostgreSQL)`,
          unit: 'addr/s',
          ours: many.rate,
          baselineName: '1 worker',
          baseline: one.rate,
          target: TARGETS[count],
        }),
        ...cpuRows(count, many, sizes),
      );
    }
    return rows;
  } finally {
    await fixture.close();
  }
}

await runAlone(import.meta.url, SECTION, run);
