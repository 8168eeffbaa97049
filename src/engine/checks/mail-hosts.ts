import { isIP } from 'node:net';
import { describeDnsFailure, type DnsClient } from '../dns/resolver.js';
import { isPrivateAddress } from '../net/private-address.js';
import type { SessionTarget } from '../smtp/session.js';

/** Addresses tried per host: enough for one dead address, not a slow crawl through a long list. */
const ADDRESSES_PER_HOST = 2;
/**
 * Addresses tried per domain, as Postfix's smtp_mx_address_limit: a domain that lists 400 MX
 * records must not turn one address into 400 connections (to us, or to whoever it points at).
 */
const MAX_ADDRESSES_PER_DOMAIN = 5;
/** Host names resolved per domain: enough to find five distinct addresses, not 400 DNS queries. */
const MAX_HOSTS_RESOLVED = 2 * MAX_ADDRESSES_PER_DOMAIN;

/** Where SMTP may connect, in order, or why nowhere. */
export interface MailTargets {
  targets: SessionTarget[];
  /** Every address the hosts resolve to that we may contact (for DNSBL lookups). */
  addresses: string[];
  /** Why `targets` is empty. */
  problem: string;
}

async function addressesOf(dns: DnsClient, host: string): Promise<{ addresses: string[]; problem: string }> {
  if (isIP(host) !== 0) return { addresses: [host], problem: '' };
  const answer = await dns.addresses(host);
  return answer.ok ? { addresses: answer.records, problem: '' } : { addresses: [], problem: `${host}: DNS ${describeDnsFailure(answer.failure)}` };
}

/**
 * Resolves the mail hosts (in preference order) to the addresses SMTP may connect to: each
 * address once, however many host names share it, and at most MAX_ADDRESSES_PER_DOMAIN of them,
 * the most preferred first. Unless `allowPrivateNetworks`, loopback, private, link-local, CGNAT
 * and metadata addresses are left out: a domain must not make us probe our own network.
 */
export async function findMailHosts(dns: DnsClient, allHosts: readonly string[], allowPrivateNetworks: boolean): Promise<MailTargets> {
  const hosts = allHosts.slice(0, MAX_HOSTS_RESOLVED);
  const resolved = await Promise.all(hosts.map((host) => addressesOf(dns, host)));
  const targets: SessionTarget[] = [];
  const seen = new Set<string>();
  const refused: string[] = [];
  hosts.forEach((hostname, index) => {
    const { addresses } = resolved[index]!;
    const allowed = addresses.filter((address) => allowPrivateNetworks || !isPrivateAddress(address));
    refused.push(...addresses.filter((address) => !allowed.includes(address)).map((address) => `${hostname} → ${address}`));
    for (const address of allowed.filter((address) => !seen.has(address)).slice(0, ADDRESSES_PER_HOST)) {
      seen.add(address);
      targets.push({ hostname, address });
    }
  });
  const problems = resolved.map((host) => host.problem).filter((problem) => problem !== '');
  const problem =
    refused.length > 0
      ? `not contacted: the mail host is on a private network (${refused.join(', ')}) and private networks are not allowed (--allow-private-networks)`
      : `the mail hosts have no address (${problems.join(', ')})`;
  const tried = targets.slice(0, MAX_ADDRESSES_PER_DOMAIN);
  return { targets: tried, addresses: tried.map((target) => target.address), problem: tried.length > 0 ? '' : problem };
}
