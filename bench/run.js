/**
 * `npm run bench`: every benchmark in turn, one table on stdout, bench/results.json written.
 *
 *   node bench/run.js [--quick | --smoke] [--only engine,csv,service,runner,scale-out,politeness,fairness,results,cli,accuracy,reuse,webhooks,submit,settling,evidence] [--smtp-latency 20] [--dns-latency 5]
 *
 * --quick uses small sizes (well under a minute a section); its figures are not the ones to quote.
 * --smoke is --quick that saves nothing and exits 1 when a section failed or a figure is missing, so
 * that CI (`npm run bench:smoke`) notices a benchmark that no longer runs.
 */
import { benchOptions, formatTable, missingRow, saveResults } from './lib/report.js';

/** Section name → its module; each also runs alone (`node bench/engine.js`). */
const SECTIONS = {
  engine: './engine.js',
  csv: './csv.js',
  service: './service.js',
  runner: './runner.js',
  'scale-out': './scale-out.js',
  politeness: './politeness.js',
  fairness: './fairness.js',
  results: './results.js',
  cli: './cli-start.js',
  accuracy: './accuracy.js',
  reuse: './reuse.js',
  webhooks: './webhooks.js',
  submit: './submit.js',
  settling: './settling.js',
  evidence: './evidence-import.js',
};

const options = benchOptions();
const wanted = options.only ? options.only.split(',').map((name) => name.trim()) : Object.keys(SECTIONS);
const unknown = wanted.filter((name) => !(name in SECTIONS));
if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);

const sections = {};
for (const name of wanted) {
  const started = performance.now();
  process.stderr.write(`bench: ${name}…\n`);
  try {
    const { run } = await import(SECTIONS[name]);
    sections[name] = await run(options);
  } catch (error) {
    // One broken part must not hide the figures of the others.
    sections[name] = [missingRow(name, `${name} benchmark`, null, `failed: ${error instanceof Error ? error.message : error}`)];
  }
  process.stderr.write(`bench: ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

const rows = Object.values(sections).flat();
console.log(formatTable(rows));
if (options.smoke) {
  // A row without a figure is broken when its part failed, is not built or lacks a machine part that
  // CI has; others say by design why a peer has no figure.
  const broken = rows.filter((row) => row.ours == null && /^(failed|not built)|missing|^no PostgreSQL|needs root/.test(row.note ?? ''));
  for (const row of broken) console.error(`bench: ${row.section}: ${row.metric}: ${row.note ?? 'no figure'}`);
  process.exitCode = broken.length > 0 ? 1 : 0;
} else {
  await saveResults(sections, options);
}
