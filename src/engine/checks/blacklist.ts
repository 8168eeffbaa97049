import { isIPv4, isIPv6 } from 'node:net';
import type { DnsClient } from '../dns/resolver.js';

/**
 * The `isBlacklisted` check: DNSBL lookups of the domain (domain lists such as dbl.spamhaus.org)
 * and of its mail hosts' addresses (IP lists such as zen.spamhaus.org) in every configured zone.
 */

/** An IPv6 address as 32 hex nibbles, or null when it is not one we can expand. */
function nibbles(ip: string): string[] | null {
  if (ip.includes('.')) return null; // IPv4-mapped forms: the IPv4 lookup covers them
  const [head = '', tail] = ip.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].flatMap((group) => [...group.padStart(4, '0')]);
}

/** The DNSBL query name of an address: octets (IPv4) or nibbles (IPv6) reversed. */
export function reversedName(ip: string): string | null {
  if (isIPv4(ip)) return ip.split('.').reverse().join('.');
  if (!isIPv6(ip)) return null;
  return nibbles(ip.toLowerCase())?.reverse().join('.') ?? null;
}

/**
 * Answers in 127.0.0.0/8 that are the list talking about the query, not listings (lists answer
 * 127.0.0.2 and up for those): taken for listings, they would turn every address risky.
 */
function isErrorAnswer(address: string): boolean {
  return (
    address.startsWith('127.255.255.') || // Spamhaus: asked via a public resolver, over the query limit, typo in the zone
    address === '127.0.0.1' || // "query refused" on several lists (URIBL, SURBL)
    address === '127.0.1.255' // Spamhaus DBL: "IP queries prohibited", what our MX-address lookups there get
  );
}

export function isListingAnswer(address: string): boolean {
  return address.startsWith('127.') && !isErrorAnswer(address);
}

/** "<what> in <zone>" for every listing found; empty when none (or when the lookups failed). */
export async function findListings(dns: DnsClient, zones: readonly string[], domain: string, addresses: readonly string[]): Promise<string[]> {
  const subjects = [
    { what: domain, name: domain },
    ...addresses.map((address) => ({ what: address, name: reversedName(address) })).filter((subject) => subject.name !== null),
  ];
  const lookups = zones.flatMap((zone) =>
    subjects.map(async ({ what, name }) => {
      const answer = await dns.ipv4(`${name}.${zone}`);
      return answer.ok && answer.records.some(isListingAnswer) ? `${what} in ${zone}` : null;
    }),
  );
  return (await Promise.all(lookups)).filter((listing) => listing !== null);
}
