/**
 * Every benchmark returns rows of one shape: our figure, the baseline measured in the same run,
 * their ratio and the target. This module turns rows into the one table and into
 * bench/results.json, and runs a benchmark file on its own (`node bench/engine.js --quick`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PROFILE_DIR } from './profiling.js';

export const RESULTS_FILE = new URL('../results.json', import.meta.url);

/**
 * @typedef {{ on: 'ratio' | 'ours', op: '>=' | '<=', value: number }} Target
 * @typedef {{ section: string, metric: string, unit: string, ours: number | null,
 *   baselineName: string, baseline: number | null, ratio: number | null, target: Target | null,
 *   met: boolean | null, note?: string, raw?: object }} Row
 */

/**
 * A measured row; the ratio is always ours ÷ baseline, in the metric's own unit.
 * @param {Omit<Row, 'ratio' | 'met'>} fields
 * @returns {Row}
 */
export function row(fields) {
  const { ours, baseline, target } = fields;
  const ratio = ours != null && baseline ? ours / baseline : null;
  const judged = target?.on === 'ours' ? ours : ratio;
  const met = target && judged != null ? (target.op === '>=' ? judged >= target.value : judged <= target.value) : null;
  return { ...fields, ratio, met };
}

/** A row that could not be measured (a part not built yet, a peer that cannot run offline): says why. */
export function missingRow(section, metric, target, why) {
  return { section, metric, unit: '', ours: null, baselineName: '', baseline: null, ratio: null, target, met: null, note: why };
}

function formatNumber(value, unit) {
  if (value == null) return '–';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const text = value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  return unit ? `${text} ${unit}` : text;
}

function formatTarget(target) {
  if (!target) return '';
  const subject = target.on === 'ratio' ? 'ratio' : 'ours';
  return `${subject} ${target.op === '>=' ? '≥' : '≤'} ${target.value}`;
}

function formatMet(met) {
  if (met == null) return '';
  return met ? 'yes' : 'NO';
}

/** The one table, as aligned plain text; notes (why a row is empty, what a figure means) below it. */
export function formatTable(rows) {
  const header = ['metric', 'ours', 'baseline', 'ratio', 'target', 'met?'];
  const lines = rows.map((r) => [
    r.metric,
    formatNumber(r.ours, r.unit),
    r.baseline == null ? '–' : `${r.baselineName}: ${formatNumber(r.baseline, r.unit)}`,
    r.ratio == null ? '–' : formatNumber(r.ratio, ''),
    formatTarget(r.target),
    formatMet(r.met),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((cells) => cells[i].length)));
  const render = (cells) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.metric}: ${r.note}`);
  return [render(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...lines.map(render), ...(notes.length ? ['', 'notes:', ...notes] : [])].join('\n');
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
  };
}

/**
 * Writes `sections` into bench/results.json, keeping the other sections a previous run left there.
 * A profiled run's figures are distorted by the profiler: they are shown, never saved.
 */
export async function saveResults(sections, { quick, cpuProf }) {
  if (cpuProf) {
    console.log(`\n--cpu-prof: figures distorted by profiling, ${fileURLToPath(RESULTS_FILE)} left as it was; profiles in ${PROFILE_DIR}`);
    return;
  }
  let previous = {};
  try {
    previous = JSON.parse(await readFile(RESULTS_FILE, 'utf8'));
  } catch {
    // first run, or a file from an incompatible version: start afresh
  }
  const results = {
    generatedAt: new Date().toISOString(),
    command: commandLine(),
    quick,
    machine: machine(),
    sections: { ...previous.sections, ...sections },
  };
  await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
}

/** Flags of `npm run bench -- …` and of every benchmark file run alone. */
export function benchOptions(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      only: { type: 'string' },
      part: { type: 'string' },
      'smtp-latency': { type: 'string', default: '20' },
      'dns-latency': { type: 'string', default: '5' },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  return {
    // A smoke run is a quick one whose only question is whether every part still runs.
    quick: values.quick || values.smoke,
    smoke: values.smoke,
    only: values.only,
    part: values.part,
    smtpLatency: values['smtp-latency'],
    dnsLatency: values['dns-latency'],
    cpuProf: values['cpu-prof'],
  };
}

/** How this run was started, for the record. */
export function commandLine() {
  return ['node', relative(process.cwd(), process.argv[1] ?? ''), ...process.argv.slice(2)].join(' ');
}

/** Runs a benchmark module's `run` when that file is the one node was started with. */
export async function runAlone(moduleUrl, name, run) {
  if (!process.argv[1] || pathToFileURL(resolve(process.argv[1])).href !== moduleUrl) return;
  const options = benchOptions();
  const rows = await run(options);
  console.log(formatTable(rows));
  await saveResults({ [name]: rows }, options);
}
