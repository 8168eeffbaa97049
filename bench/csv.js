/**
 * CSV stage (issue 5, item 3): `bulk submit`'s read / column detection / de-duplication / syntax
 * pre-check stage and `bulk results`' merge-back writer, each against a raw csv-parse →
 * csv-stringify passthrough of the same file in the same run; then the same stages over a file
 * five times longer holding the same distinct addresses, to show that peak RSS follows the
 * distinct addresses and not the file.
 *
 *   node bench/csv.js [--quick] [--cpu-prof]
 */
import { existsSync } from 'node:fs';
import { stat, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { runChild } from './lib/child.js';
import { profileFlags } from './lib/profiling.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { generatedList } from './csv/generate.js';
import { WORK_DIR } from './lib/work-dir.js';

const SECTION = 'csv';
const SIZES = { full: { distinct: 1_000_000, repeat: 5 }, quick: { distinct: 20_000, repeat: 5 } };
const CSV_MODULES = ['source.js', 'address-list.js', 'result-index.js', 'result-writer.js'].map((file) => `../dist/csv/${file}`);
const TIMEOUT_MS = 10 * 60_000;
const SPEED_TARGET = { on: 'ratio', op: '>=', value: 0.8 };
const MEMORY_TARGET = { on: 'ratio', op: '<=', value: 1.5 };
const STAGE_SCRIPT = new URL('./csv/stage.js', import.meta.url);
const OUTPUT = fileURLToPath(new URL('stage-output.csv', WORK_DIR));

async function measure(stage, input, { distinct, rows, cpuProf }) {
  const execArgv = profileFlags({ cpuProf }, `csv-${stage}-${rows}-rows`);
  const { result, maxRssKb } = await runChild(STAGE_SCRIPT, { stage, input, output: OUTPUT, distinct }, { timeoutMs: TIMEOUT_MS, execArgv });
  await rm(OUTPUT, { force: true });
  return { ...result, maxRssMiB: maxRssKb / 1024 };
}

/** 1M rows, 50k rows. */
function label(rows) {
  return rows >= 1e6 ? `${rows / 1e6}M rows` : `${rows / 1e3}k rows`;
}

function rowsPerSecond(rows, { elapsedMs }) {
  return (rows / elapsedMs) * 1000;
}

export async function run({ quick = false, cpuProf = false } = {}) {
  const missing = CSV_MODULES.filter((module) => !existsSync(new URL(module, import.meta.url)));
  const speedMetrics = ['bulk submit read stage', 'bulk results merge-back'];
  if (missing.length > 0) {
    return speedMetrics.map((metric) => missingRow(SECTION, metric, SPEED_TARGET, `not built yet: ${missing.join(', ')} (npm run build)`));
  }
  const { distinct, repeat } = quick ? SIZES.quick : SIZES.full;
  const small = await generatedList(distinct, distinct);
  const large = await generatedList(distinct * repeat, distinct);
  const smallMiB = (await stat(small)).size / 2 ** 20;
  const largeMiB = (await stat(large)).size / 2 ** 20;

  const smallRun = { distinct, rows: distinct, cpuProf };
  const largeRun = { distinct, rows: distinct * repeat, cpuProf };
  const passthrough = await measure('passthrough', small, smallRun);
  const submit = await measure('submit', small, smallRun);
  const merge = await measure('merge', small, smallRun);
  const submitLarge = await measure('submit', large, largeRun);
  const mergeLarge = await measure('merge', large, largeRun);

  const files = { small: { rows: distinct, mib: smallMiB }, large: { rows: distinct * repeat, mib: largeMiB }, distinct };
  const baselineRate = rowsPerSecond(distinct, passthrough);
  return [
    row({
      section: SECTION,
      metric: `bulk submit read stage, ${label(distinct)}`,
      unit: 'rows/s',
      ours: rowsPerSecond(distinct, submit),
      baselineName: 'csv passthrough',
      baseline: baselineRate,
      target: SPEED_TARGET,
      raw: { files, passthrough, submit },
    }),
    row({
      section: SECTION,
      metric: `bulk results merge-back, ${label(distinct)}`,
      unit: 'rows/s',
      ours: rowsPerSecond(distinct, merge),
      baselineName: 'csv passthrough',
      baseline: baselineRate,
      target: SPEED_TARGET,
      raw: { merge },
    }),
    row({
      section: SECTION,
      metric: `submit peak RSS, ${label(distinct * repeat)} vs ${label(distinct)}`,
      unit: 'MiB',
      ours: submitLarge.maxRssMiB,
      baselineName: label(distinct),
      baseline: submit.maxRssMiB,
      target: MEMORY_TARGET,
      raw: { submitLarge },
    }),
    row({
      section: SECTION,
      metric: `merge-back peak RSS, ${label(distinct * repeat)} vs ${label(distinct)}`,
      unit: 'MiB',
      ours: mergeLarge.maxRssMiB,
      baselineName: label(distinct),
      baseline: merge.maxRssMiB,
      target: MEMORY_TARGET,
      raw: { mergeLarge },
    }),
    row({
      section: SECTION,
      metric: `submit peak RSS vs passthrough's, ${label(distinct)}`,
      unit: 'MiB',
      ours: submit.maxRssMiB,
      baselineName: 'passthrough',
      baseline: passthrough.maxRssMiB,
      target: null,
    }),
  ];
}

await runAlone(import.meta.url, SECTION, run);
