/**
 * CLI start (issue 5, item 5): wall time from spawn to exit of `mailverify --help` and
 * `mailverify verify --help` against `node -e 0`, the floor any Node CLI starts from. The three
 * commands take turns within each round, so drift in the machine's load hits all of them alike.
 *
 *   node bench/cli-start.js [--quick]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './lib/stats.js';
import { missingRow, row, runAlone } from './lib/report.js';

const SECTION = 'cli';
const BIN = fileURLToPath(new URL('../bin/mailverify.js', import.meta.url));
const CLI_MAIN = new URL('../dist/cli/main.js', import.meta.url);
const ROUNDS = { full: 20, quick: 5 };
const WARMUP_ROUNDS = 2;
const TIMEOUT_MS = 30_000;
const HELP_TARGET = { on: 'ratio', op: '<=', value: 2 };

const COMMANDS = {
  node: ['-e', '0'],
  help: [BIN, '--help'],
  verifyHelp: [BIN, 'verify', '--help'],
};

function timeRun(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}`));
    });
  });
}

export async function run({ quick = false } = {}) {
  if (!existsSync(CLI_MAIN)) {
    return [missingRow(SECTION, 'mailverify --help start', HELP_TARGET, 'not built yet: dist/cli/main.js (npm run build)')];
  }
  const times = Object.fromEntries(Object.keys(COMMANDS).map((name) => [name, []]));
  const rounds = quick ? ROUNDS.quick : ROUNDS.full;
  for (let round = 0; round < WARMUP_ROUNDS + rounds; round++) {
    for (const [name, args] of Object.entries(COMMANDS)) {
      const ms = await timeRun(args);
      if (round >= WARMUP_ROUNDS) times[name].push(ms);
    }
  }
  const raw = { rounds, times };
  const nodeMs = median(times.node);
  return [
    row({
      section: SECTION,
      metric: 'mailverify --help start (median)',
      unit: 'ms',
      ours: median(times.help),
      baselineName: 'node -e 0',
      baseline: nodeMs,
      target: HELP_TARGET,
      raw,
    }),
    row({
      section: SECTION,
      metric: 'mailverify verify --help start (median)',
      unit: 'ms',
      ours: median(times.verifyHelp),
      baselineName: 'node -e 0',
      baseline: nodeMs,
      target: null,
    }),
  ];
}

await runAlone(import.meta.url, SECTION, run);
