import { isIPv4, isIPv6 } from 'node:net';
import { describeDnsFailure, isDefiniteFailure, type DnsClient } from '../dns/resolver.js';

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

/** Spamhaus DBL's "IP queries prohibited": a list of domains asked about an address (our MX-address lookups there get it). */
export const IP_QUERIES_REFUSED = '127.0.1.255';

/** The reverse-DNS name of an address, where its PTR records are: `5.113.0.203.in-addr.arpa`, or under `ip6.arpa`. */
export function reverseDnsName(ip: string): string | null {
  const name = reversedName(ip);
  return name === null ? null : `${name}.${isIPv4(ip) ? 'in-addr' : 'ip6'}.arpa`;
}

/**
 * Answers in 127.0.0.0/8 that are the list talking about the query, not listings (lists answer
 * 127.0.0.2 and up for those): taken for listings, they would turn every address risky.
 */
function isErrorAnswer(address: string): boolean {
  return (
    address.startsWith('127.255.255.') || // Spamhaus: asked via a public resolver, over the query limit, typo in the zone
    address === '127.0.0.1' || // "query refused" on several lists (URIBL, SURBL)
    address === IP_QUERIES_REFUSED
  );
}

export function isListingAnswer(address: string): boolean {
  return address.startsWith('127.') && !isErrorAnswer(address);
}

/**
 * What one zone says of one query name (a domain, or an address's `reversedName`): listed (with its
 * answers), not listed (NXDOMAIN, NODATA, or no listing answer), or not found out (the lookup failed,
 * or only error answers came back: `answers` says which, since those name the cause).
 */
export type ZoneAnswer = { listed: true; answers: string[] } | { listed: false } | { listed: null; failure: string; answers: string[] };

export async function askZone(dns: DnsClient, zone: string, name: string): Promise<ZoneAnswer> {
  const answer = await dns.ipv4(`${name}.${zone}`);
  if (!answer.ok)
    return isDefiniteFailure(answer.failure) ? { listed: false } : { listed: null, failure: `DNS ${describeDnsFailure(answer.failure)}`, answers: [] };
  const listings = answer.records.filter(isListingAnswer);
  if (listings.length > 0) return { listed: true, answers: listings };
  const errors = answer.records.filter(isErrorAnswer);
  return errors.length > 0 ? { listed: null, failure: 'an error answer', answers: errors } : { listed: false };
}

/** "<what> in <zone>" for every listing found; empty when none (or when the lookups failed). */
export async function findListings(dns: DnsClient, zones: readonly string[], domain: string, addresses: readonly string[]): Promise<string[]> {
  const subjects = [
    { what: domain, name: domain },
    ...addresses.flatMap((address) => {
      const name = reversedName(address);
      return name === null ? [] : [{ what: address, name }];
    }),
  ];
  const lookups = zones.flatMap((zone) =>
    subjects.map(async ({ what, name }) => ((await askZone(dns, zone, name)).listed === true ? `${what} in ${zone}` : null)),
  );
  return (await Promise.all(lookups)).filter((listing) => listing !== null);
}
