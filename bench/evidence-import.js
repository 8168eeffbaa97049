/**
 * Evidence import: `readEvidencePath` over a generated mbox of bounces of every kind (RFC 3464
 * reports, delay warnings, delivery reports, qmail and Exim plain-text bounces), in a child process
 * of its own. Speed in messages/s and MB/s, against only reading the same file and cutting it into
 * lines; memory as peak RSS over the mbox ten times longer against the short one, to show it stays
 * flat whatever the file's size.
 *
 *   node bench/evidence-import.js [--quick]
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChild } from './lib/child.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { writeMbox } from './evidence/generate.js';

const SECTION = 'evidence';
const SIZES = { full: { small: 10_000, large: 100_000 }, quick: { small: 1_000, large: 10_000 } };
const READER = new URL('../dist/engine/evidence/read.js', import.meta.url);
const CHILD = new URL('./evidence/import.js', import.meta.url);
const TIMEOUT_MS = 15 * 60_000;
const MEMORY_TARGET = { on: 'ratio', op: '<=', value: 1.5 };

async function measure(file, stage) {
  const { result, maxRssKb } = await runChild(CHILD, { file, stage }, { timeoutMs: TIMEOUT_MS });
  return { ...result, maxRssMiB: maxRssKb / 1024 };
}

/** 100k messages, 1k messages. */
function label(count) {
  return `${count / 1000}k messages`;
}

export async function run({ quick = false } = {}) {
  if (!existsSync(READER)) return [missingRow(SECTION, 'mbox import speed', null, 'not built yet: dist/engine/evidence (npm run build)')];
  const { small, large } = quick ? SIZES.quick : SIZES.full;
  const dir = await mkdtemp(join(tmpdir(), 'mailverify-bench-evidence-'));
  try {
    const smallFile = join(dir, 'small.mbox');
    const largeFile = join(dir, 'large.mbox');
    await writeMbox(smallFile, small);
    const largeBytes = await writeMbox(largeFile, large);
    const largeMB = largeBytes / 1e6;
    const lines = await measure(largeFile, 'lines');
    const importSmall = await measure(smallFile, 'import');
    const importLarge = await measure(largeFile, 'import');
    if (importLarge.events !== large || importLarge.skips !== 0) {
      throw new Error(`read ${importLarge.events} events and ${importLarge.skips} skips from ${large} messages`);
    }
    const seconds = importLarge.elapsedMs / 1000;
    return [
      row({
        section: SECTION,
        metric: `mbox import, ${label(large)}`,
        unit: 'messages/s',
        ours: large / seconds,
        baselineName: '',
        baseline: null,
        target: null,
        raw: { importLarge },
      }),
      // On a machine other processes share, the time the reader itself ran says more than the wall clock.
      row({
        section: SECTION,
        metric: `mbox import, ${label(large)}, per CPU second`,
        unit: 'messages/s',
        ours: large / (importLarge.cpuMs / 1000),
        baselineName: '',
        baseline: null,
        target: null,
      }),
      row({
        section: SECTION,
        metric: `mbox import, ${label(large)} (${largeMB.toFixed(0)} MB)`,
        unit: 'MB/s',
        ours: largeMB / seconds,
        baselineName: 'read + split lines',
        baseline: largeMB / (lines.elapsedMs / 1000),
        target: null,
        raw: { lines },
      }),
      row({
        section: SECTION,
        metric: `mbox import peak RSS, ${label(large)} vs ${label(small)}`,
        unit: 'MiB',
        ours: importLarge.maxRssMiB,
        baselineName: label(small),
        baseline: importSmall.maxRssMiB,
        target: MEMORY_TARGET,
        raw: { importSmall },
      }),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await runAlone(import.meta.url, SECTION, run);
