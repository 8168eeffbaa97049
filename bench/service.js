/**
 * Service (issue 5, item 4): autocannon at 50 connections against the authenticated
 * `GET /v1/bulk-verify/{id}/progress` and `POST /v1/verify` (engine on a zero-latency fixture) of
 * the real `mailverify serve`, and against a bare fastify route answering JSON of the same size,
 * same run; then the time `POST /v1/bulk-verify` of 50,000 addresses takes to answer, each
 * submission on a fresh service so that no earlier job's work competes with it.
 *
 *   node bench/service.js [--quick] [--cpu-prof]
 */
import { existsSync } from 'node:fs';
import autocannon from 'autocannon';
import { request } from 'undici';
import { missingRow, row, runAlone } from './lib/report.js';
import { median } from './lib/stats.js';
import { profileFlags } from './lib/profiling.js';
import { startWorldFixture } from './engine/world-fixture.js';
import { startBareServer, startMailverify } from './service/processes.js';

const SECTION = 'service';
const CONNECTIONS = 50;
const BULK_SIZE = 50_000;
const SETTINGS = { full: { durationS: 8, submissions: 3 }, quick: { durationS: 1, submissions: 1 } };
const WARMUP_S = 1;
const NEEDED = ['../dist/cli/main.js', '../dist/server/serve.js', '../dist/engine/index.js'];
const PROGRESS_TARGET = { on: 'ratio', op: '>=', value: 0.5 };
const SUBMIT_TARGET = { on: 'ours', op: '<=', value: 1000 };
const ZERO_LATENCY = { smtpLatencyMs: 0, dnsLatencyMs: 0, slowFactor: 1 };

async function call(url, { method = 'GET', token, body } = {}) {
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const started = performance.now();
  const response = await request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.body.text();
  const elapsedMs = performance.now() - started;
  if (response.statusCode >= 300) throw new Error(`${method} ${url} answered ${response.statusCode}: ${text.slice(0, 300)}`);
  return { json: JSON.parse(text), bytes: Buffer.byteLength(text), elapsedMs };
}

/** autocannon's mean requests per second and p99 latency, after a short warm-up run. */
async function load(url, { method = 'GET', token, body, durationS }) {
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const options = { url, connections: CONNECTIONS, method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  await autocannon({ ...options, duration: WARMUP_S });
  const result = await autocannon({ ...options, duration: durationS });
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts };
}

/** A row pair: throughput and p99, ours against the bare route; notes any failed request. */
function loadRows(metric, ours, bare, target) {
  const failures = ours.non2xx + ours.errors + ours.timeouts;
  const note = failures > 0 ? `${failures} of our requests failed (non-2xx, errors or timeouts)` : undefined;
  return [
    row({
      section: SECTION,
      metric: `${metric}: throughput`,
      unit: 'req/s',
      ours: ours.requestsPerSecond,
      baselineName: 'bare fastify',
      baseline: bare.requestsPerSecond,
      target,
      note,
      raw: { ours, bare },
    }),
    row({ section: SECTION, metric: `${metric}: p99 latency`, unit: 'ms', ours: ours.p99Ms, baselineName: 'bare fastify', baseline: bare.p99Ms, target: null }),
  ];
}

async function measureRoutes(fixture, engineArgs, { durationS, nodeFlags }) {
  const service = await startMailverify(engineArgs, nodeFlags);
  let bare;
  try {
    const [someDomain] = fixture.world.domains.filter((domain) => domain.kind === 'normal');
    const verifyBody = { email: someDomain.addresses[0].email };
    const job = await call(`${service.url}/v1/bulk-verify`, {
      method: 'POST',
      token: service.token,
      body: { emails: someDomain.addresses.map((a) => a.email) },
    });
    const progressUrl = `${service.url}/v1/bulk-verify/${job.json.jobId}/progress`;
    const progress = await call(progressUrl, { token: service.token });
    const verified = await call(`${service.url}/v1/verify`, { method: 'POST', token: service.token, body: verifyBody });
    bare = await startBareServer({ progressBody: progress.json, verifyBody: verified.json });

    const ours = {
      progress: await load(progressUrl, { token: service.token, durationS }),
      verify: await load(`${service.url}/v1/verify`, { method: 'POST', token: service.token, body: verifyBody, durationS }),
    };
    const baseline = {
      progress: await load(`${bare.url}/progress`, { durationS }),
      verify: await load(`${bare.url}/verify`, { method: 'POST', body: verifyBody, durationS }),
    };
    return [
      ...loadRows('GET /v1/bulk-verify/{id}/progress (authenticated)', ours.progress, baseline.progress, PROGRESS_TARGET),
      ...loadRows('POST /v1/verify (zero-latency fixture)', ours.verify, baseline.verify, null),
    ];
  } finally {
    await bare?.stop();
    await service.stop();
  }
}

async function measureSubmission(fixture, engineArgs, submissions) {
  const emails = fixture.world.addresses.slice(0, BULK_SIZE);
  const ours = [];
  for (let i = 0; i < submissions; i++) {
    const service = await startMailverify(engineArgs);
    try {
      const answer = await call(`${service.url}/v1/bulk-verify`, { method: 'POST', token: service.token, body: { emails } });
      if (answer.json.queued !== emails.length) throw new Error(`queued ${answer.json.queued} of ${emails.length}`);
      ours.push(answer.elapsedMs);
    } finally {
      // The 50,000 addresses are still being verified: SIGTERM abandons them (they would resume on restart).
      await service.stop();
    }
  }
  const bare = await startBareServer({ progressBody: { job_id: 'bench' }, verifyBody: {} });
  const baseline = [];
  try {
    for (let i = 0; i < submissions; i++) baseline.push((await call(`${bare.url}/bulk`, { method: 'POST', body: { emails } })).elapsedMs);
  } finally {
    await bare.stop();
  }
  return row({
    section: SECTION,
    metric: `POST /v1/bulk-verify of ${BULK_SIZE.toLocaleString('en-US')} addresses: time to answer`,
    unit: 'ms',
    ours: median(ours),
    baselineName: 'bare fastify',
    baseline: median(baseline),
    target: SUBMIT_TARGET,
    raw: { ours, baseline },
  });
}

export async function run({ quick = false, cpuProf = false } = {}) {
  const missing = NEEDED.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0) {
    return [
      missingRow(
        SECTION,
        'GET /v1/bulk-verify/{id}/progress (authenticated): throughput',
        PROGRESS_TARGET,
        `not built yet: ${missing.join(', ')} (npm run build)`,
      ),
    ];
  }
  const { durationS, submissions } = quick ? SETTINGS.quick : SETTINGS.full;
  const fixture = await startWorldFixture({ addresses: BULK_SIZE, domains: 200 }, ZERO_LATENCY);
  try {
    const engineArgs = ['--dns-server', fixture.dnsServer, '--smtp-port', String(fixture.smtpPort)];
    return [
      ...(await measureRoutes(fixture, engineArgs, { durationS, nodeFlags: profileFlags({ cpuProf }, 'service-routes') })),
      await measureSubmission(fixture, engineArgs, submissions),
    ];
  } finally {
    await fixture.close();
  }
}

await runAlone(import.meta.url, SECTION, run);
