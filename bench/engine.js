/**
 * Engine bulk throughput (issue 5, items 1 and 2): our engine's verifyMany against the ideal
 * schedule of the fixture, and the npm peers on the same fixture in the same run, each verifier in
 * a child process of its own while the fixture (DNS server and MX hosts) runs in this one.
 *
 *   node bench/engine.js [--quick] [--smtp-latency 20] [--dns-latency 5] [--cpu-prof] [--part ours]
 */
import { existsSync } from 'node:fs';
import { runChild } from './lib/child.js';
import { profileFlags } from './lib/profiling.js';
import { missingRow, row, runAlone } from './lib/report.js';
import { idealSchedule } from './engine/ideal-schedule.js';
import { PEERS } from './engine/peers.js';
import { startWorldFixture } from './engine/world-fixture.js';

const SECTION = 'engine';
const SIZES = { full: { addresses: 10_000, domains: 200 }, quick: { addresses: 500, domains: 20 } };
/** Slow hosts answer this many times slower than the others. */
const SLOW_FACTOR = 5;
const ENGINE_MODULES = ['../dist/engine/index.js'];
/** A verifier taking this many times the ideal schedule is stuck, not slow. */
const TIMEOUT_FACTOR = 30;
const MIN_TIMEOUT_MS = 60_000;
const MISMATCH_EXAMPLES = 8;

const THROUGHPUT_TARGET = { on: 'ratio', op: '>=', value: 0.9 };
const PEER_SPEED_TARGET = { on: 'ratio', op: '>=', value: 10 };
const PEER_ACCURACY_TARGET = { on: 'ratio', op: '>=', value: 1 };
/** The postmaster control may add at most one RCPT per hundred addresses (issue 28). */
const POSTMASTER_RCPT_TARGET = { on: 'ratio', op: '<=', value: 1.01 };

/** Share of right verdicts, overall and per domain kind, and a few wrong ones with their reasons. */
function score(world, verdicts) {
  const perKind = {};
  const mismatches = [];
  let right = 0;
  for (const domain of world.domains) {
    const kind = (perKind[domain.kind] ??= { right: 0, total: 0, got: {} });
    for (const { email, truth: mailbox } of domain.addresses) {
      // One pass of the engine answers a greylisted address `unknown` at once (asking it again later is
      // the job runner's, measured in bench/runner.js): that is its right answer here.
      const truth = domain.kind === 'greylisted' ? 'unknown' : mailbox;
      const got = verdicts[email]?.result ?? 'missing';
      kind.total += 1;
      kind.got[got] = (kind.got[got] ?? 0) + 1;
      if (got === truth) {
        right += 1;
        kind.right += 1;
      } else if (mismatches.length < MISMATCH_EXAMPLES) {
        mismatches.push({ email, truth, got, reason: verdicts[email]?.reason ?? '' });
      }
    }
  }
  return { accuracy: right / world.addresses.length, perKind, mismatches };
}

/**
 * What the MX hosts saw, per kind of host: sessions, most at once on one host, summed session
 * time, and when (ms after the first session anywhere) the first session began and the last ended.
 */
function hostActivity(hostStats) {
  const active = hostStats.filter((host) => host.sessions > 0);
  const origin = Math.min(...active.map((host) => host.firstAt));
  const byKind = {};
  for (const host of active) {
    const kind = (byKind[host.kind] ??= { hosts: 0, sessions: 0, maxConcurrentPerHost: 0, busyMs: 0, startMs: Infinity, endMs: 0 });
    kind.hosts += 1;
    kind.sessions += host.sessions;
    kind.maxConcurrentPerHost = Math.max(kind.maxConcurrentPerHost, host.maxConcurrent);
    kind.busyMs += host.busyMs;
    kind.startMs = Math.min(kind.startMs, host.firstAt - origin);
    kind.endMs = Math.max(kind.endMs, host.lastAt - origin);
  }
  return byKind;
}

async function measure(fixture, script, task, { timeoutMs, execArgv = [] }) {
  fixture.reset();
  const { result } = await runChild(new URL(script, import.meta.url), task, { timeoutMs, execArgv });
  const hosts = hostActivity(fixture.hostStats());
  return {
    addressesPerSecond: (fixture.world.addresses.length / result.elapsedMs) * 1000,
    elapsedMs: result.elapsedMs,
    cpuMs: result.cpuMs,
    smtpSessions: Object.values(hosts).reduce((sum, kind) => sum + kind.sessions, 0),
    rcpts: fixture.hostStats().reduce((sum, host) => sum + host.rcpts, 0),
    postmasterRcpts: fixture.hostStats().reduce((sum, host) => sum + host.postmasterRcpts, 0),
    dnsQueries: fixture.dnsQueryCount(),
    hosts,
    ...score(fixture.world, result.verdicts),
  };
}

function percent(share) {
  return share * 100;
}

function peerRows(peer, ours, measured) {
  const raw = { peer: measured };
  return [
    row({
      section: SECTION,
      metric: `engine vs ${peer}: speed`,
      unit: 'addr/s',
      ours: ours.addressesPerSecond,
      baselineName: peer,
      baseline: measured.addressesPerSecond,
      target: PEER_SPEED_TARGET,
      raw,
    }),
    row({
      section: SECTION,
      metric: `engine vs ${peer}: accuracy`,
      unit: '%',
      ours: percent(ours.accuracy),
      baselineName: peer,
      baseline: percent(measured.accuracy),
      target: PEER_ACCURACY_TARGET,
    }),
  ];
}

export async function run({ quick = false, smtpLatency = '20', dnsLatency = '5', cpuProf = false, part } = {}) {
  const missing = ENGINE_MODULES.filter((module) => !existsSync(new URL(module, import.meta.url)));
  if (missing.length > 0) {
    return [missingRow(SECTION, 'engine throughput vs ideal schedule', THROUGHPUT_TARGET, `not built yet: ${missing.join(', ')} (npm run build)`)];
  }
  const { DEFAULT_ENGINE_OPTIONS } = await import('../dist/engine/index.js');
  const latency = { smtpLatencyMs: Number(smtpLatency), dnsLatencyMs: Number(dnsLatency), slowFactor: SLOW_FACTOR };
  // With free SMTP replies the ideal schedule is zero time: nothing to compare against.
  if (!(latency.smtpLatencyMs > 0) || !(latency.dnsLatencyMs >= 0)) {
    throw new Error(`--smtp-latency must be > 0 and --dns-latency ≥ 0 (ms), got ${smtpLatency} and ${dnsLatency}`);
  }
  const { concurrency, perHostConcurrency } = DEFAULT_ENGINE_OPTIONS;
  const sizes = quick ? SIZES.quick : SIZES.full;

  const fixture = await startWorldFixture(sizes, latency);
  try {
    const { world, dnsServer, smtpPort } = fixture;
    const ideal = idealSchedule(world, { ...latency, concurrency, perHostConcurrency });
    const timeoutMs = Math.max(MIN_TIMEOUT_MS, TIMEOUT_FACTOR * ideal.wallMs);
    const options = {
      dnsServers: [dnsServer],
      smtpPort,
      heloName: 'bench.mailverify.test',
      mailFrom: 'verify@bench.mailverify.test',
      concurrency,
      perHostConcurrency,
      // Neither is part of deliverability, and no peer does them: left out of the comparison.
      dnsblZones: [],
      webCheck: false,
      allowPrivateNetworks: true,
    };
    const ours = await measure(
      fixture,
      './engine/verify-ours.js',
      { addresses: world.addresses, options },
      { timeoutMs, execArgv: profileFlags({ cpuProf }, 'engine-verify-many') },
    );
    const workload = { ...sizes, latency, concurrency, perHostConcurrency, hosts: world.hosts.length };
    const rows = [
      row({
        section: SECTION,
        metric: 'engine throughput vs ideal schedule',
        unit: 'addr/s',
        ours: ours.addressesPerSecond,
        baselineName: 'ideal',
        baseline: ideal.addressesPerSecond,
        target: THROUGHPUT_TARGET,
        raw: { workload, ideal, ours },
      }),
      row({
        section: SECTION,
        metric: 'engine accuracy vs ground truth',
        unit: '%',
        ours: percent(ours.accuracy),
        baselineName: 'truth',
        baseline: 100,
        target: null,
      }),
      row({
        section: SECTION,
        metric: 'engine RCPTs per address',
        unit: 'RCPT/addr',
        ours: ours.rcpts / world.addresses.length,
        baselineName: '',
        baseline: null,
        target: null,
      }),
      row({
        section: SECTION,
        metric: 'engine RCPTs with the postmaster control vs without it',
        unit: 'RCPTs',
        ours: ours.rcpts,
        baselineName: 'without',
        baseline: ours.rcpts - ours.postmasterRcpts,
        target: POSTMASTER_RCPT_TARGET,
      }),
    ];
    // `--part ours`: the engine alone, for before/after runs of one change.
    for (const peer of part === 'ours' ? [] : Object.keys(PEERS)) {
      if (fixture.portNote) {
        rows.push(missingRow(SECTION, `engine vs ${peer}: speed`, PEER_SPEED_TARGET, fixture.portNote));
        continue;
      }
      try {
        const measured = await measure(fixture, './engine/verify-peer.js', { peer, dnsServer, addresses: world.addresses, concurrency }, { timeoutMs });
        rows.push(...peerRows(peer, ours, measured));
      } catch (error) {
        rows.push(missingRow(SECTION, `engine vs ${peer}: speed`, PEER_SPEED_TARGET, `failed: ${error.message.split('\n')[0]}`));
      }
    }
    return rows;
  } finally {
    await fixture.close();
  }
}

await runAlone(import.meta.url, SECTION, run);
