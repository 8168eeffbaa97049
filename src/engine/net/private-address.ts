/**
 * Which IP addresses the engine must not contact unless `allowPrivateNetworks` is on: an MX or a
 * web host that resolves into one of these ranges would turn a verification into a probe of our
 * own network (SSRF), cloud metadata endpoints included. Non-global ranges of the IANA special-
 * purpose registries, where a public mail or web server cannot be.
 */
import { BlockList, isIP } from 'node:net';

/** [network, prefix length, why] */
const IPV4_RANGES: [string, number, string][] = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'RFC 1918 private'],
  ['100.64.0.0', 10, 'carrier-grade NAT (RFC 6598); holds Alibaba metadata 100.100.100.200'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local; holds the AWS/GCP/Azure metadata service 169.254.169.254'],
  ['172.16.0.0', 12, 'RFC 1918 private'],
  ['192.0.0.0', 24, 'IETF protocol assignments; holds Oracle metadata 192.0.0.192'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast'],
  ['192.168.0.0', 16, 'RFC 1918 private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved, and 255.255.255.255 broadcast'],
];

/** IPv4-mapped addresses (::ffff:a.b.c.d) are matched against the IPv4 ranges by BlockList itself. */
const IPV6_RANGES: [string, number, string][] = [
  ['::', 96, 'unspecified, loopback ::1 and deprecated IPv4-compatible addresses'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 32, 'Teredo tunnels: the IPv4 peer is hidden inside'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:10::', 28, 'ORCHID'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4 (deprecated): the IPv4 address is hidden inside'],
  ['3fff::', 20, 'documentation'],
  ['fc00::', 7, 'unique local; holds the AWS metadata service fd00:ec2::254'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'deprecated site-local'],
  ['ff00::', 8, 'multicast'],
];

// Cheap to build (a few dozen subnets), so built at import rather than on first use.
const PRIVATE_RANGES = new BlockList();
for (const [network, prefix] of IPV4_RANGES) PRIVATE_RANGES.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of IPV6_RANGES) PRIVATE_RANGES.addSubnet(network, prefix, 'ipv6');

/** The NAT64 well-known prefix: its last 32 bits are the IPv4 address really reached. */
const NAT64 = new BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');

function embeddedNat64Ipv4(ipv6: string): string | null {
  if (!NAT64.check(ipv6, 'ipv6')) return null;
  // The canonical form ends in the two low hextets, either of which may be '' inside a '::' run.
  const canonical = new URL(`http://[${ipv6}]`).hostname.slice(1, -1);
  const [high = 0, low = 0] = canonical
    .split(':')
    .slice(-2)
    .map((hextet) => (hextet ? parseInt(hextet, 16) : 0));
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * True when `ip` must not be contacted with `allowPrivateNetworks` off. Anything that is not an IP
 * address counts as private too: we never connect to what we cannot classify.
 */
export function isPrivateAddress(ip: string): boolean {
  const address = ip
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .split('%')[0]!; // [v6] brackets, fe80::1%eth0 zone
  const family = isIP(address);
  if (family === 4) return PRIVATE_RANGES.check(address, 'ipv4');
  if (family !== 6) return true;
  const nat64 = embeddedNat64Ipv4(address);
  if (nat64) return PRIVATE_RANGES.check(nat64, 'ipv4');
  return PRIVATE_RANGES.check(address, 'ipv6');
}
