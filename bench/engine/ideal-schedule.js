/**
 * The ideal schedule: a lower bound on the wall time ANY correct verifier needs for a world, given
 * the fixture's latencies and the verifier's global and per-MX-host session limits. BENCHMARKS.md
 * explains it in words; the numbers here are what the engine's throughput is divided by.
 *
 * Each MX host answers one command per connection at a time, each after the host's reply delay, so
 * an SMTP session occupies one connection slot for (replies × delay). The least work per domain:
 * - one session: greeting, EHLO, MAIL FROM (SESSION_OVERHEAD replies), then RCPT TO for a random
 *   local part (the catch-all probe) and for each address; a catch-all domain needs the probe only;
 * - a greylisted domain the same: the engine answers it in one pass (the job runner asks it again later);
 * - an NXDOMAIN domain no SMTP at all;
 * - before any SMTP two DNS answers in sequence: the MX, then the MX host's address.
 * Splitting a domain over more sessions only adds overhead, so the total slot time is least with one
 * session per domain attempt. The bound is the largest of:
 *   global     Σ slot time / concurrency
 *   per host   max over hosts of (Σ slot time on that host) / perHostConcurrency
 *   chain      max over domains of the longest dependency chain, even with the domain's RCPTs
 *              spread over perHostConcurrency parallel sessions.
 */

const SESSION_OVERHEAD = 3;
const DNS_ANSWERS_BEFORE_SMTP = 2;

/**
 * @param {import('./world.js').World} world
 * @param {{ smtpLatencyMs: number, slowFactor: number, dnsLatencyMs: number, concurrency: number,
 *   perHostConcurrency: number }} limits
 */
export function idealSchedule(world, limits) {
  const { dnsLatencyMs, concurrency, perHostConcurrency } = limits;
  const slotMsByHost = new Map();
  let slotMs = 0;
  let chainMs = 0;

  for (const domain of world.domains) {
    if (!domain.host) {
      chainMs = Math.max(chainMs, dnsLatencyMs);
      continue;
    }
    const replyMs = limits.smtpLatencyMs * (domain.host.kind === 'slow' ? limits.slowFactor : 1);
    const rcpts = 1 + (domain.kind === 'catch_all' ? 0 : domain.addresses.length);
    const domainSlotMs = (SESSION_OVERHEAD + rcpts) * replyMs;
    slotMs += domainSlotMs;
    slotMsByHost.set(domain.host, (slotMsByHost.get(domain.host) ?? 0) + domainSlotMs);

    const firstPassMs = (SESSION_OVERHEAD + Math.ceil(rcpts / perHostConcurrency)) * replyMs;
    chainMs = Math.max(chainMs, DNS_ANSWERS_BEFORE_SMTP * dnsLatencyMs + firstPassMs);
  }

  const bounds = {
    globalMs: slotMs / concurrency,
    perHostMs: Math.max(0, ...[...slotMsByHost.values()].map((ms) => ms / perHostConcurrency)),
    chainMs,
  };
  const wallMs = Math.max(bounds.globalMs, bounds.perHostMs, bounds.chainMs);
  const binding = Object.entries(bounds).find(([, ms]) => ms === wallMs)?.[0] ?? 'globalMs';
  return { wallMs, bounds, binding, addressesPerSecond: (world.addresses.length / wallMs) * 1000 };
}
