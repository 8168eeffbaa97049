/**
 * Webhooks (issue 19 item 1): how long after a bulk job completes its `bulk_job.completed` event
 * reaches a receiver on loopback, median over several jobs: on one node (`serve` on SQLite) and
 * across nodes (an API-only `serve` and two `worker`s on one PostgreSQL database, the job completed
 * and the event delivered by whichever worker). A job of strings that are not addresses completes
 * as soon as it is claimed, so the time measured is the delivery's own: from the completion the
 * event's `timestamp` records to the request's arrival, on one host's clock.
 *
 *   node bench/webhooks.js [--quick]
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import { call, submit } from './service/api.js';
import { createBenchDatabase } from './lib/postgres.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { median } from './lib/stats.js';
import { startMailverify, startWorker } from './service/processes.js';

const SECTION = 'webhooks';
const SETTINGS = { full: { jobs: 15 }, quick: { jobs: 3 } };
const NEEDED = ['../dist/server/webhooks/deliverer.js', '../dist/cli/commands/worker.js'];
const DELIVERY_TIMEOUT_MS = 30_000;
/** The receiver is on loopback: webhooks there need their own flag (the engine's --allow-private-networks does not cover them). */
const PRIVATE_WEBHOOKS = ['--allow-private-webhooks'];

/**
 * A receiver that answers 204 and resolves, per job id, the milliseconds from the event's timestamp
 * to its arrival; an event may arrive before its job's latency is asked for (kept until then).
 */
async function startReceiver() {
  const waiting = new Map();
  const arrived = new Map();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const arrivedAt = Date.now();
      res.writeHead(204).end();
      const event = JSON.parse(body);
      const ms = arrivedAt - Date.parse(event.timestamp);
      const waiter = waiting.get(event.data.jobId);
      if (waiter) waiter(ms);
      else arrived.set(event.data.jobId, ms);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    latencyOf: (jobId) =>
      new Promise((resolve, reject) => {
        if (arrived.has(jobId)) return resolve(arrived.get(jobId));
        const timer = setTimeout(() => reject(new Error(`no event for job ${jobId} within ${DELIVERY_TIMEOUT_MS} ms`)), DELIVERY_TIMEOUT_MS);
        waiting.set(jobId, (ms) => {
          clearTimeout(timer);
          resolve(ms);
        });
      }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Median latency of `jobs` events, one job at a time, on a service (and its workers) already running. */
async function measure(service, jobs) {
  const receiver = await startReceiver();
  try {
    await call(`${service.url}/v1/webhooks`, { method: 'POST', token: service.token, body: { url: receiver.url } });
    const latencies = [];
    for (let index = 0; index < jobs; index++) {
      latencies.push(await receiver.latencyOf(await submit(service, [`not an address ${index}`])));
    }
    return { median: median(latencies), latencies };
  } finally {
    await receiver.close();
  }
}

export async function run(options) {
  if (NEEDED.some((path) => !existsSync(new URL(path, import.meta.url)))) return [missingRow(SECTION, 'webhook delivery', null, 'not built: npm run build')];
  const { jobs } = options.quick ? SETTINGS.quick : SETTINGS.full;
  const metric = (where) => `bulk_job.completed delivered after completion, ${where}: median`;
  const rows = [];

  const single = await startMailverify(PRIVATE_WEBHOOKS);
  try {
    const one = await measure(single, jobs);
    rows.push(
      row({
        section: SECTION,
        metric: metric('one node (serve, SQLite)'),
        unit: 'ms',
        ours: one.median,
        baselineName: '',
        baseline: null,
        target: null,
        raw: one,
      }),
    );
  } finally {
    await single.stop();
  }

  const database = await createBenchDatabase();
  if ('missing' in database) return [...rows, missingRow(SECTION, metric('across nodes (PostgreSQL)'), null, database.missing)];
  const api = await startMailverify(['--no-worker', ...PRIVATE_WEBHOOKS], [], database.url);
  const workers = [];
  try {
    workers.push(...(await Promise.all([0, 1].map(() => startWorker(api.storeArgs, PRIVATE_WEBHOOKS)))));
    const across = await measure(api, jobs);
    rows.push(
      row({
        section: SECTION,
        metric: metric('across nodes (API + 2 workers, PostgreSQL)'),
        unit: 'ms',
        ours: across.median,
        baselineName: '',
        baseline: null,
        target: null,
        raw: across,
      }),
    );
  } finally {
    for (const worker of workers) await worker.stop();
    await api.stop();
    await database.drop();
  }
  return rows;
}

await runAlone(import.meta.url, SECTION, run);
