import { BlockList, isIP } from 'node:net';

/**
 * `--trust-proxy`: the proxies' addresses and CIDR ranges, and at most how many of them in a row
 * stand in front of the service (any number when not given). Always addresses: a hop count alone
 * would believe whoever reaches the port directly.
 */
export interface TrustProxy {
  addresses: readonly string[];
  hops?: number;
}

/** The ranges behind the names proxy-addr (fastify's trustProxy) takes, which `--trust-proxy` takes too. */
const NAMED_RANGES: Record<string, readonly (readonly [string, number])[]> = {
  loopback: [
    ['127.0.0.0', 8],
    ['::1', 128],
  ],
  linklocal: [
    ['169.254.0.0', 16],
    ['fe80::', 10],
  ],
  uniquelocal: [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['fc00::', 7],
  ],
};

/** `255.255.0.0` as 16. */
const maskBits = (mask: string): number => mask.split('.').reduce((bits, octet) => bits + Number(octet).toString(2).replaceAll('0', '').length, 0);

/** Whether an address is one of the proxies (`--trust-proxy`'s entries, as parseTrustProxy checked them). */
function proxyMatcher(entries: readonly string[]): (address: string) => boolean {
  const proxies = new BlockList();
  const add = (network: string, prefix: number) => proxies.addSubnet(network, prefix, isIP(network) === 4 ? 'ipv4' : 'ipv6');
  for (const entry of entries) {
    const [network = '', prefix] = entry.split('/');
    if (NAMED_RANGES[entry]) for (const [base, bits] of NAMED_RANGES[entry]) add(base, bits);
    else if (prefix === undefined) add(network, isIP(network) === 4 ? 32 : 128);
    else add(network, isIP(prefix) === 4 ? maskBits(prefix) : Number(prefix));
  }
  // IPv4-mapped addresses (::ffff:a.b.c.d) are matched against the IPv4 ranges by BlockList itself.
  return (address) => isIP(address) !== 0 && proxies.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
}

/**
 * `--trust-proxy` as fastify takes it (docs/operating.md "TLS and a reverse proxy"): the addresses
 * as one list; with a hop count, a hop is believed only when it is within the count and one of the
 * addresses, so that a client reaching the port directly never picks its own address.
 */
export function trustedProxies(trust: TrustProxy | undefined): string | ((address: string, hop: number) => boolean) | undefined {
  if (trust === undefined) return undefined;
  const { addresses, hops } = trust;
  if (hops === undefined) return addresses.join(',');
  const isProxy = proxyMatcher(addresses);
  return (address, hop) => hop < hops && isProxy(address);
}
