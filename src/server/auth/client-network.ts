import { isIP } from 'node:net';

/** `::ffff:203.0.113.5`, an IPv4 client seen by a dual-stack listener. */
const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** The eight groups of an IPv6 address, each as hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  // The URL parser writes an IPv6 address one way: lower case, a dotted IPv4 tail as two hex groups.
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
}

/**
 * The network a login limit counts a client by (docs/api.md "How requests are served"): an
 * IPv4 address itself, an IPv6 address's /64, since one subscriber is given a whole /64 and picks
 * any address in it for each attempt. Anything else (not an address) is counted as given.
 */
export function clientNetwork(clientAddress: string): string {
  const address = clientAddress.split('%')[0]!;
  const mapped = IPV4_MAPPED.exec(address);
  if (mapped) return mapped[1]!;
  if (isIP(address) !== 6) return clientAddress;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}
