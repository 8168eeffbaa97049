/**
 * The result cache (issue 19): the same list submitted a second time to one `mailverify serve`,
 * against the first submission, same run: the time from the POST to the job completed, and the
 * RCPTs the fixture's MX hosts were asked. The world is the engine benchmark's (200 domains of five
 * kinds, 20 ms per SMTP reply), greylisted addresses asked again 2 s later.
 *
 *   node bench/reuse.js [--quick]
 */
import { row, runAlone } from './lib/report.js';
import { startWorldFixture } from './engine/world-fixture.js';
import { submit, untilCompleted } from './service/api.js';
import { startMailverify } from './service/processes.js';

const SECTION = 'reuse';
const SIZES = { full: { addresses: 20_000, domains: 200 }, quick: { addresses: 1_000, domains: 20 } };
/** As the engine benchmark's: slow hosts answer this many times slower. */
const SLOW_FACTOR = 5;
const SPEEDUP_TARGET = { on: 'ratio', op: '<=', value: 0.05 };

/** Milliseconds from the POST to the progress saying completed, and the RCPTs the hosts saw meanwhile. */
async function timedJob(service, fixture, emails) {
  fixture.reset();
  const started = performance.now();
  // Polled every 25 ms: the second run takes a few hundred, and its ratio sits near the target.
  await untilCompleted(service, await submit(service, emails), { pollMs: 25 });
  const ms = performance.now() - started;
  return { ms, rcpts: fixture.hostStats().reduce((sum, host) => sum + host.rcpts, 0) };
}

export async function run({ quick, smtpLatency, dnsLatency }) {
  const fixture = await startWorldFixture(SIZES[quick ? 'quick' : 'full'], {
    smtpLatencyMs: Number(smtpLatency),
    dnsLatencyMs: Number(dnsLatency),
    slowFactor: SLOW_FACTOR,
  });
  const engineArgs = ['--dns-server', fixture.dnsServer, '--smtp-port', String(fixture.smtpPort), '--retry-schedule', '2s'];
  const service = await startMailverify(engineArgs);
  try {
    const emails = fixture.world.addresses;
    const first = await timedJob(service, fixture, emails);
    const second = await timedJob(service, fixture, emails);
    const note = `${emails.length} addresses; RCPTs at the MX hosts: ${first.rcpts} the first time, ${second.rcpts} the second (only unknowns are asked again)`;
    return [
      row({
        section: SECTION,
        metric: `second submission of ${emails.length} addresses: time`,
        unit: 'ms',
        ours: second.ms,
        baselineName: 'first submission',
        baseline: first.ms,
        target: SPEEDUP_TARGET,
        note,
      }),
      row({
        section: SECTION,
        metric: 'second submission: RCPTs at the MX hosts',
        unit: 'RCPTs',
        ours: second.rcpts,
        baselineName: 'first submission',
        baseline: first.rcpts,
        target: null,
      }),
    ];
  } finally {
    await service.stop();
    await fixture.close();
  }
}

await runAlone(import.meta.url, SECTION, run);
