/**
 * Results (issue 9, item 6): `GET /v1/bulk-verify/{id}` of a 50,000-result job from the real
 * `mailverify serve --no-worker` against a bare fastify route sending the very same bytes from
 * memory, same run: the time to the last byte (one request at a time, then four at once) and each
 * server's peak RSS (VmHWM) after the requests. The results are written into the service's store
 * directly (under a lease, as a runner writes them), so no SMTP work is part of the figures.
 *
 *   node bench/results.js [--quick]
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { missingRow, row, runAlone } from './lib/report.js';
import { median } from './lib/stats.js';
import { WORK_DIR, ensureWorkDir } from './lib/work-dir.js';
import { startBareServer, startMailverify } from './service/processes.js';

const SECTION = 'results';
const TOTAL = 50_000;
const SETTINGS = { full: { sequential: 7, concurrent: 3 }, quick: { sequential: 2, concurrent: 1 } };
const AT_ONCE = 4;
const NEEDED = ['../dist/server/serve.js', '../dist/server/store/open/open-store.js'];
const VERDICTS = ['valid', 'invalid', 'risky', 'catch_all', 'unknown'];

/** Peak resident memory of a process so far, in MiB (Linux). */
function peakRssMiB(pid) {
  const kilobytes = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kilobytes) / 1024;
}

function resultAt(index, email) {
  const verdict = VERDICTS[index % VERDICTS.length];
  return {
    email,
    result: verdict,
    reason: `250 2.1.5 recipient <${email}> ok (bench result ${index})`,
    checks: {
      format: true,
      domainExists: true,
      hasMx: true,
      domainReachable: true,
      smtpStatus: verdict === 'valid' ? 'valid' : 'unknown',
      isDisposable: false,
      isRole: false,
      isBlacklisted: false,
      isKnownProvider: false,
      isCatchAll: verdict === 'catch_all',
    },
  };
}

/** A job of TOTAL addresses with every result stored, on the service's own store. */
async function jobWithResults(service) {
  const emails = Array.from({ length: TOTAL }, (_, index) => `user${index}@domain${index % 500}.bench.test`);
  // A connection of its own, closed at once: writing the results takes longer than the service
  // keeps an idle connection, and a GET must not be sent on one it is closing.
  const dispatcher = new Agent();
  const submitted = await request(`${service.url}/v1/bulk-verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${service.token}` },
    body: JSON.stringify({ emails }),
    dispatcher,
  });
  const { jobId } = await submitted.body.json();
  await dispatcher.close();
  const { openStore } = await import('../dist/server/store/open/open-store.js');
  const store = await openStore({ dataDir: service.dataDir });
  try {
    for (
      let chunk = await store.work.claimWork({ maxItems: TOTAL, leaseMs: 600_000 });
      chunk;
      chunk = await store.work.claimWork({ maxItems: TOTAL, leaseMs: 600_000 })
    ) {
      await store.work.saveResults(
        chunk.items.map((item) => ({ lease: chunk.lease, jobId, position: item.position, result: resultAt(item.position, item.email) })),
      );
    }
  } finally {
    await store.close();
  }
  return jobId;
}

/** Milliseconds to the last byte of one GET, and the body's size. */
async function fetchOnce(url, token) {
  const started = performance.now();
  const response = await request(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const body = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}`);
  return { elapsedMs: performance.now() - started, body };
}

/**
 * Median time of one GET alone, median time of AT_ONCE at once (the slowest of each round), the
 * peak RSS after them and how much it grew during them (after one warm-up request).
 */
async function measure(url, token, pid, { sequential, concurrent }) {
  await fetchOnce(url, token);
  const before = peakRssMiB(pid);
  const alone = [];
  for (let i = 0; i < sequential; i++) alone.push((await fetchOnce(url, token)).elapsedMs);
  const together = [];
  for (let i = 0; i < concurrent; i++) {
    const started = performance.now();
    await Promise.all(Array.from({ length: AT_ONCE }, () => fetchOnce(url, token)));
    together.push(performance.now() - started);
  }
  const peak = peakRssMiB(pid);
  return { aloneMs: median(alone), togetherMs: median(together), peakRssMiB: peak, growthMiB: peak - before, raw: { alone, together } };
}

export async function run({ quick = false } = {}) {
  const missing = NEEDED.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0)
    return [missingRow(SECTION, 'GET /v1/bulk-verify/{id}, 50,000 results: time', null, `not built yet: ${missing.join(', ')} (npm run build)`)];
  const settings = quick ? SETTINGS.quick : SETTINGS.full;
  const service = await startMailverify(['--no-worker']);
  let bare;
  try {
    const jobId = await jobWithResults(service);
    const url = `${service.url}/v1/bulk-verify/${jobId}`;
    const { body } = await fetchOnce(url, service.token);
    await ensureWorkDir();
    const resultsFile = fileURLToPath(new URL('results-body.json', WORK_DIR));
    await writeFile(resultsFile, body);
    bare = await startBareServer({ progressBody: { job_id: jobId }, verifyBody: {}, resultsFile });

    const ours = await measure(url, service.token, service.pid, settings);
    const baseline = await measure(`${bare.url}/results`, undefined, bare.pid, settings);
    const size = `${(Buffer.byteLength(body) / 1024 / 1024).toFixed(1)} MiB body`;
    const metric = `GET /v1/bulk-verify/{id}, ${TOTAL.toLocaleString('en-US')} results (${size})`;
    const compared = { section: SECTION, baselineName: 'bare fastify, same bytes' };
    return [
      row({
        ...compared,
        metric: `${metric}: time, one at a time`,
        unit: 'ms',
        ours: ours.aloneMs,
        baseline: baseline.aloneMs,
        target: null,
        raw: { ours: ours.raw.alone, baseline: baseline.raw.alone },
      }),
      row({
        ...compared,
        metric: `${metric}: time, ${AT_ONCE} at once`,
        unit: 'ms',
        ours: ours.togetherMs,
        baseline: baseline.togetherMs,
        target: null,
        raw: { ours: ours.raw.together, baseline: baseline.raw.together },
      }),
      row({
        ...compared,
        metric: `${metric}: server peak RSS after`,
        unit: 'MiB',
        ours: ours.peakRssMiB,
        baseline: baseline.peakRssMiB,
        target: null,
        note: 'the bare server holds the whole body in memory from its start',
      }),
      row({
        ...compared,
        metric: `${metric}: server peak RSS growth during the requests`,
        unit: 'MiB',
        ours: ours.growthMiB,
        baseline: baseline.growthMiB,
        target: null,
      }),
    ];
  } finally {
    await bare?.stop();
    await service.stop();
  }
}

await runAlone(import.meta.url, SECTION, run);
