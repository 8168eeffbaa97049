/**
 * Settling later (issue 35, docs/architecture.md "Settling later"): one `serve` on SQLite with
 * `--retry-schedule 5s,20s`, a list of 20,000 addresses (2,000 with --quick) over the world's
 * domains, a tenth of them at hosts that greylist each recipient for 6 s after its first RCPT, as
 * postgrey with --delay=6 does. Measured: the time until the job completes, the SMTP sessions and
 * RCPTs per address the hosts saw (the catch-all probes included), and another user's 10-address
 * job at ten other hosts while the list's greylisted addresses wait for their next try, against
 * the same job on the idle service.
 *
 *   node bench/settling.js [--quick]
 */
import { existsSync } from 'node:fs';
import { missingRow, row, runAlone } from './lib/report.js';
import { median } from './lib/stats.js';
import { startWorldFixture } from './engine/world-fixture.js';
import { call, submit, untilCompleted } from './service/api.js';
import { startMailverify } from './service/processes.js';

const SECTION = 'settling';
const NEEDED = ['../dist/cli/main.js', '../dist/server/serve.js'];
const SIZES = { full: { addresses: 20_000, domains: 400, samples: 3 }, quick: { addresses: 2_000, domains: 100, samples: 1 } };
const LATENCY = { smtpLatencyMs: 20, dnsLatencyMs: 5, slowFactor: 1 };
const GREYLIST_MS = 6_000;
const SCHEDULE = '5s,20s';
const SMALL_JOB = 10;
const RCPTS_TARGET = { on: 'ours', op: '<=', value: 1.15 };
const BESIDE_TARGET = { on: 'ratio', op: '<=', value: 1.5 };

/** One plain domain at each of `count` hosts: the small job's, away from the list's hosts where it can. */
function smallJobDomains(world, count) {
  const byHost = new Map();
  for (const domain of world.domains) if (domain.kind === 'normal' && !byHost.has(domain.host.ip)) byHost.set(domain.host.ip, domain);
  return [...byHost.values()].slice(-count);
}

async function timedSmallJob(service, domains, label) {
  const emails = Array.from({ length: SMALL_JOB }, (_, index) => `${label}-${index}@${domains[index % domains.length].name}`);
  const started = performance.now();
  await untilCompleted(service, await submit(service, emails), { pollMs: 20 });
  return performance.now() - started;
}

/** Polls the list's progress until its greylisted addresses wait (the first pass is done): what they wait for is then the schedule alone. */
async function untilWaiting(service, jobId) {
  for (;;) {
    const progress = await call(`${service.url}/v1/bulk-verify/${jobId}/progress`, { token: service.token });
    if (progress.status === 'completed') return progress;
    if ((progress.waiting ?? 0) > 0 && progress.processed + progress.waiting >= progress.total) return progress;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function run({ quick = false } = {}) {
  const missing = NEEDED.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0) return [missingRow(SECTION, 'a list with greylisted addresses', null, `not built yet: ${missing.join(', ')} (npm run build)`)];
  const { addresses, domains, samples } = quick ? SIZES.quick : SIZES.full;
  const fixture = await startWorldFixture({ addresses, domains }, LATENCY, { greylistMs: GREYLIST_MS });
  const engineArgs = [...fixture.engineArgs, '--retry-schedule', SCHEDULE];
  const service = await startMailverify(engineArgs);
  try {
    const small = smallJobDomains(fixture.world, SMALL_JOB);
    await timedSmallJob(service, small, 'warm');
    const idle = [];
    for (let sample = 0; sample < samples; sample++) idle.push(await timedSmallJob(service, small, `idle${sample}`));
    fixture.reset();

    // The list is another user's: the small job's user has nothing of its own waiting.
    const lister = { url: service.url, token: await service.addUser('lister@mailverify.test') };
    const started = performance.now();
    const list = await submit(lister, fixture.world.addresses);
    const waiting = await untilWaiting(lister, list);
    const beside = [];
    for (let sample = 0; sample < samples; sample++) beside.push(await timedSmallJob(service, small, `beside${sample}`));
    await untilCompleted(lister, list, { pollMs: 100 });
    const totalMs = performance.now() - started;

    // Every greylisted address settled as its mailbox is, none left `unknown`.
    const { results } = await call(`${service.url}/v1/bulk-verify/${list}`, { token: lister.token });
    const greylisted = fixture.world.domains.filter((domain) => domain.kind === 'greylisted').flatMap((domain) => domain.addresses);
    const verdictOf = new Map(results.map((result) => [result.email, result.result]));
    const settledRight = greylisted.filter(({ email, truth }) => verdictOf.get(email) === truth).length;

    const hosts = fixture.hostStats();
    const sessions = hosts.reduce((sum, host) => sum + host.sessions, 0);
    // The small jobs beside it asked their addresses at the same hosts: theirs are left out.
    const rcpts = hosts.reduce((sum, host) => sum + host.rcpts, 0) - SMALL_JOB * samples;
    const listSize = fixture.world.addresses.length;
    const workload = { addresses: listSize, greylisted: `${GREYLIST_MS / 1_000} s`, schedule: SCHEDULE, waitingAtOnce: waiting.waiting };
    return [
      row({
        section: SECTION,
        metric: `${listSize.toLocaleString('en-US')} addresses, a tenth greylisted for 6 s, --retry-schedule ${SCHEDULE}: until completed`,
        unit: 'ms',
        ours: totalMs,
        target: null,
        raw: workload,
      }),
      row({ section: SECTION, metric: 'the same list: SMTP sessions (the small jobs beside it included)', unit: '', ours: sessions, target: null }),
      row({
        section: SECTION,
        metric: `the same list: greylisted addresses settled as their mailbox is (of ${greylisted.length.toLocaleString('en-US')})`,
        unit: '%',
        ours: (100 * settledRight) / greylisted.length,
        target: { on: 'ours', op: '>=', value: 100 },
      }),
      row({
        section: SECTION,
        metric: 'the same list: RCPTs per address (catch-all probes included)',
        unit: 'RCPT/addr',
        ours: rcpts / listSize,
        target: RCPTS_TARGET,
      }),
      row({
        section: SECTION,
        metric: `another user's ${SMALL_JOB}-address job while ${waiting.waiting.toLocaleString('en-US')} of the list's addresses wait for their next try vs idle (SQLite)`,
        unit: 'ms',
        ours: median(beside),
        baselineName: 'idle',
        baseline: median(idle),
        target: BESIDE_TARGET,
      }),
    ];
  } finally {
    await service.stop();
    await fixture.close();
  }
}

await runAlone(import.meta.url, SECTION, run);
