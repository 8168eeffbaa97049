/**
 * `bulk submit` of a large CSV list (issue 22): the built CLI against a naive read-and-POST
 * script (bench/submit/naive.js) sending the same list to the same kind of service, same run.
 * Each command runs against a fresh `mailverify serve --no-worker` (fresh data dir, so neither
 * finds the other's million items in its store, and no job is worked while it submits), pairs in
 * alternating order, median of the pairs. Peak RSS is GNU time's %M (the maxrss of the command's
 * own process).
 *
 *   node bench/submit.js [--quick] [--cpu-prof]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedList } from './csv/generate.js';
import { profileFlags } from './lib/profiling.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { median } from './lib/stats.js';
import { ensureWorkDir } from './lib/work-dir.js';
import { startMailverify } from './service/processes.js';

const SECTION = 'submit';
const BIN = fileURLToPath(new URL('../bin/mailverify.js', import.meta.url));
const NAIVE = fileURLToPath(new URL('./submit/naive.js', import.meta.url));
const TIME = '/usr/bin/time';
const NEEDED = ['../dist/cli/commands/bulk/submit.js', '../dist/cli/commands/serve.js'];
const SIZES = { full: { rows: 1_000_000, pairs: 5 }, quick: { rows: 100_000, pairs: 1 } };
/** The generated list's email column (id, first_name, last_name, email, …). */
const EMAIL_COLUMN = 3;
const JOB_SIZE = 50_000;
const TIME_TARGET = { on: 'ratio', op: '<=', value: 1.2 };

/** Runs `args` under GNU time on a fresh service; resolves with wall time, peak RSS and the job ids printed. */
async function timed(args, dir) {
  await mkdir(dir);
  const service = await startMailverify(['--no-worker']);
  const rssFile = join(dir, 'rss');
  const env = { ...process.env, NO_COLOR: '1', MAILVERIFY_BASE_URL: service.url, MAILVERIFY_TOKEN: service.token, MAILVERIFY_CONFIG_DIR: join(dir, 'config') };
  try {
    const started = performance.now();
    const stdout = await new Promise((resolve, reject) => {
      const child = spawn(TIME, ['-f', '%M', '-o', rssFile, process.execPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk) => (err = (err + chunk).slice(-2000)));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
    });
    const elapsedMs = performance.now() - started;
    const maxRssMiB = Number((await readFile(rssFile, 'utf8')).trim().split('\n').pop()) / 1024;
    return { elapsedMs, maxRssMiB, jobs: stdout.trim().split('\n').length };
  } finally {
    await service.stop();
  }
}

export async function run({ quick = false, cpuProf = false } = {}) {
  const missing = NEEDED.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0)
    return [missingRow(SECTION, 'bulk submit vs naive read-and-POST: time', TIME_TARGET, `not built yet: ${missing.join(', ')} (npm run build)`)];
  if (!existsSync(TIME)) return [missingRow(SECTION, 'bulk submit vs naive read-and-POST: time', TIME_TARGET, `${TIME} (GNU time) is missing`)];
  const { rows, pairs } = quick ? SIZES.quick : SIZES.full;
  const list = await generatedList(rows, rows);
  const dir = await mkdtemp(join(fileURLToPath(await ensureWorkDir()), 'submit-'));
  const ours = [];
  const naive = [];
  try {
    for (let pair = 0; pair < pairs; pair++) {
      const runOurs = async () =>
        ours.push(
          await timed([...profileFlags({ cpuProf }, `submit-${rows}-rows-${pair}`), BIN, '--quiet', 'bulk', 'submit', list], join(dir, `ours-${pair}`)),
        );
      const runNaive = async () => naive.push(await timed([NAIVE, list, String(EMAIL_COLUMN)], join(dir, `naive-${pair}`)));
      // Alternating which goes first, so that neither always meets a warmer or busier machine.
      if (pair % 2 === 0) await runOurs().then(runNaive);
      else await runNaive().then(runOurs);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const expectedJobs = Math.ceil(rows / JOB_SIZE);
  const wrong = [...ours, ...naive].filter((each) => each.jobs !== expectedJobs);
  const note = wrong.length > 0 ? `a run created ${wrong[0].jobs} jobs, not ${expectedJobs}` : undefined;
  const size = rows >= 1e6 ? `${rows / 1e6}M rows` : `${rows / 1e3}k rows`;
  const ms = (runs) => median(runs.map((each) => each.elapsedMs));
  const mib = (runs) => median(runs.map((each) => each.maxRssMiB));
  return [
    row({
      section: SECTION,
      metric: `bulk submit vs naive read-and-POST, ${size}: time`,
      unit: 'ms',
      ours: ms(ours),
      baselineName: 'naive',
      baseline: ms(naive),
      target: TIME_TARGET,
      note,
      raw: { ours, naive, pairRatios: ours.map((each, pair) => each.elapsedMs / naive[pair].elapsedMs) },
    }),
    row({
      section: SECTION,
      metric: `bulk submit vs naive read-and-POST, ${size}: peak RSS`,
      unit: 'MiB',
      ours: mib(ours),
      baselineName: 'naive',
      baseline: mib(naive),
      target: null,
    }),
  ];
}

await runAlone(import.meta.url, SECTION, run);
