/**
 * A world brought up for real: one DNS server and one MX host per world host, all on loopback.
 * The MX hosts listen on port 25 when we may bind it (peers hard-code 25), on one shared
 * ephemeral port otherwise (then only our engine, whose port is an option, can be measured).
 */
import { startDnsFixture } from '../fixtures/dns.js';
import { startMxHost } from '../fixtures/smtp.js';
import { buildWorld, dnsRecords, hostedDomains } from './world.js';

const SMTP_PORT = 25;
const SUBNET_ATTEMPTS = 8;

/** A 127.x.y prefix of our own, so a second run or another fixture on 127.0.0.x does not collide. */
function randomHostPrefix() {
  return `127.${100 + Math.floor(Math.random() * 150)}.${Math.floor(Math.random() * 250)}`;
}

async function startHosts(world, port, latency, greylistMs) {
  const started = [];
  try {
    for (const host of world.hosts) {
      const replyDelayMs = latency.smtpLatencyMs * (host.kind === 'slow' ? latency.slowFactor : 1);
      const domains = hostedDomains(world, host);
      const mx = await startMxHost({
        host: host.ip,
        port,
        replyDelayMs,
        greylist: host.kind === 'greylisted',
        greylistMs,
        refusesInOwnWords: host.refusesInOwnWords,
        domains,
      });
      started.push(mx);
      // Port 0 on the first host picks the port every other host then shares.
      port = mx.port;
    }
    return started;
  } catch (error) {
    await Promise.all(started.map((mx) => mx.close()));
    throw error;
  }
}

/**
 * @param {{ addresses: number, domains: number }} sizes
 * @param {{ smtpLatencyMs: number, slowFactor: number, dnsLatencyMs: number }} latency
 * @param {{ greylistMs?: number }} [greylisting] how long greylisting hosts refuse a recipient after its first RCPT (default: only that RCPT)
 */
export async function startWorldFixture(sizes, latency, { greylistMs } = {}) {
  let lastError;
  for (let attempt = 0; attempt < SUBNET_ATTEMPTS; attempt++) {
    const world = buildWorld({ ...sizes, hostPrefix: randomHostPrefix() });
    let hosts;
    let portNote = '';
    try {
      hosts = await startHosts(world, SMTP_PORT, latency, greylistMs);
    } catch (error) {
      lastError = error;
      if (error.code === 'EADDRINUSE') continue;
      if (error.code !== 'EACCES') throw error;
      portNote = 'port 25 needs root here: MX hosts on an ephemeral port, peers (fixed to port 25) not run';
      hosts = await startHosts(world, 0, latency, greylistMs);
    }
    const dns = await startDnsFixture(dnsRecords(world), { latencyMs: latency.dnsLatencyMs });
    return {
      world,
      dnsServer: dns.server,
      smtpPort: hosts[0]?.port ?? SMTP_PORT,
      /** The flags that point `serve`, `worker` and `--local` at this world: its DNS server, its MX port, our HELO name. */
      engineArgs: ['--dns-server', dns.server, '--smtp-port', String(hosts[0]?.port ?? SMTP_PORT), '--helo', 'bench.mailverify.test'],
      portNote,
      /** Per MX host: its kind, sessions, peak parallel sessions, busy time and active span. */
      hostStats: () => hosts.map((mx, i) => ({ ip: mx.host, kind: world.hosts[i].kind, ...mx.stats() })),
      dnsQueryCount: () => dns.queryCount(),
      /** Greylist state and counts forgotten: the next verifier meets the world as the first did. */
      reset() {
        for (const mx of hosts) mx.reset();
        dns.resetCounts();
      },
      async close() {
        await Promise.all([dns.close(), ...hosts.map((mx) => mx.close())]);
      },
    };
  }
  throw new Error(`no free loopback subnet for the MX hosts: ${lastError?.message}`);
}
