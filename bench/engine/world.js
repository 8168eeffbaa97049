/**
 * The engine benchmark's workload: domains of five kinds on a handful of MX hosts, addresses
 * spread evenly over the domains, and the ground truth of every address. Deterministic: the same
 * sizes always give the same world, so runs compare.
 */
import { RESOLVER_CANARIES } from '../../dist/engine/dns/sanity.js';
import { createRandom, shuffle } from '../lib/random.js';

/** Share of the domains of each kind (they add up to 1). */
export const DOMAIN_KINDS = {
  // Mailboxes that exist are valid, the others invalid (550 5.1.1).
  normal: 0.65,
  // Every RCPT accepted: the right verdict is catch_all, whatever the local part.
  catch_all: 0.1,
  // postgrey on the host: the first RCPT of each recipient gets 450, the retry the true answer.
  greylisted: 0.1,
  // On hosts answering every command `slowFactor` times slower than the others.
  slow: 0.1,
  // No such domain: NXDOMAIN, so invalid without any SMTP.
  nxdomain: 0.05,
};

/** Kinds of MX host, the domain kinds each serves and how many domains share one host. */
const HOST_KINDS = {
  // Catch-all is a per-domain setting on an ordinary MTA, so those domains share its hosts.
  normal: { serves: ['normal', 'catch_all'], domainsPerHost: 12 },
  greylisted: { serves: ['greylisted'], domainsPerHost: 10 },
  slow: { serves: ['slow'], domainsPerHost: 5 },
};
const FIRST_NAMES = ['alex', 'maria', 'jonas', 'li', 'samira', 'noor', 'ivan', 'zoe', 'kofi', 'elena'];
/** Three in five mailboxes exist. */
const EXISTS_EVERY = { of: 5, exist: 3 };

/**
 * @typedef {{ index: number, ip: string, name: string, kind: 'normal' | 'greylisted' | 'slow', refusesInOwnWords: boolean }} MxHost
 * @typedef {{ name: string, kind: keyof typeof DOMAIN_KINDS, host: MxHost | null,
 *   addresses: { email: string, truth: string }[] }} Domain
 * @typedef {{ domains: Domain[], hosts: MxHost[], addresses: string[], truth: Map<string, string> }} World
 */

/** Whole domain counts per kind that add up to `total` (largest remainder), every kind at least one. */
function domainCounts(total) {
  const kinds = Object.keys(DOMAIN_KINDS);
  if (total < kinds.length) throw new Error(`need at least ${kinds.length} domains, one per kind`);
  const exact = kinds.map((kind) => DOMAIN_KINDS[kind] * total);
  const counts = exact.map((value) => Math.max(1, Math.floor(value)));
  const byRemainder = kinds.map((_, i) => i).sort((a, b) => (exact[b] % 1) - (exact[a] % 1));
  for (let i = 0; counts.reduce((sum, n) => sum + n, 0) < total; i++) counts[byRemainder[i % kinds.length]] += 1;
  return new Map(kinds.map((kind, i) => [kind, counts[i]]));
}

function truthFor(kind, exists) {
  if (kind === 'catch_all') return 'catch_all';
  if (kind === 'nxdomain') return 'invalid';
  return exists ? 'valid' : 'invalid';
}

/**
 * @param {{ addresses: number, domains: number, hostPrefix: string }} sizes
 *   `hostPrefix` is the first three octets of the MX hosts' addresses, e.g. "127.77.0".
 * @returns {World}
 */
export function buildWorld({ addresses, domains: domainTotal, hostPrefix }) {
  const random = createRandom(20261121);
  const counts = domainCounts(domainTotal);
  const hosts = [];
  const hostsOfKind = new Map();
  for (const [hostKind, { serves, domainsPerHost }] of Object.entries(HOST_KINDS)) {
    const domainsOnHosts = serves.reduce((sum, kind) => sum + counts.get(kind), 0);
    const list = Array.from({ length: Math.ceil(domainsOnHosts / domainsPerHost) }, () => {
      const index = hosts.length + 1;
      // Every other ordinary host refuses unknown mailboxes in words no reply table reads (MessageLabs'
      // terse "Rejected") and takes postmaster, as RFC 5321 asks: what the postmaster control costs.
      const refusesInOwnWords = hostKind === 'normal' && index % 2 === 0;
      const host = { index, ip: `${hostPrefix}.${index}`, name: `mx${index}.mvbench-hosting.net`, kind: hostKind, refusesInOwnWords };
      hosts.push(host);
      return host;
    });
    const pool = { list, next: 0 };
    for (const kind of serves) hostsOfKind.set(kind, pool);
  }

  // Kinds interleaved, so that no verifier meets all the slow domains last by accident.
  const kinds = shuffle(
    [...counts].flatMap(([kind, count]) => Array(count).fill(kind)),
    random,
  );
  const perDomain = Math.floor(addresses / domainTotal);
  const list = kinds.map((kind, i) => {
    const name = `mvbench-d${String(i + 1).padStart(3, '0')}.com`;
    const pool = hostsOfKind.get(kind);
    const host = pool ? pool.list[pool.next++ % pool.list.length] : null;
    const size = perDomain + (i < addresses % domainTotal ? 1 : 0);
    const domainAddresses = Array.from({ length: size }, (_, k) => ({
      email: `${FIRST_NAMES[k % FIRST_NAMES.length]}.${k + 1}@${name}`,
      truth: truthFor(kind, k % EXISTS_EVERY.of < EXISTS_EVERY.exist),
    }));
    return { name, kind, host, addresses: domainAddresses };
  });

  const all = list.flatMap((domain) => domain.addresses);
  return {
    domains: list,
    hosts,
    // A list as users have them: not sorted by domain.
    addresses: shuffle(
      all.map((a) => a.email),
      random,
    ),
    truth: new Map(all.map((a) => [a.email, a.truth])),
  };
}

/**
 * The DNS table of a world: MX per existing domain, A per MX host; NXDOMAIN domains left out. The
 * big providers' MX too, as any truthful resolver has them: the engine asks before it believes an NXDOMAIN.
 */
export function dnsRecords(world) {
  const records = new Map(RESOLVER_CANARIES.map((domain) => [domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]]));
  for (const host of world.hosts) records.set(host.name, [{ type: 'A', address: host.ip }]);
  for (const domain of world.domains) {
    if (domain.host) records.set(domain.name, [{ type: 'MX', exchange: domain.host.name, priority: 10 }]);
  }
  return records;
}

/** What one MX host serves: its domains, catch-all or with their existing mailboxes. */
export function hostedDomains(world, host) {
  const hosted = new Map();
  for (const domain of world.domains) {
    if (domain.host !== host) continue;
    const mailboxes = new Set(domain.addresses.filter((a) => a.truth === 'valid').map((a) => a.email));
    hosted.set(domain.name, { catchAll: domain.kind === 'catch_all', mailboxes });
  }
  return hosted;
}
