import { isIP } from 'node:net';
import { describeDnsFailure, type DnsClient } from '../dns/resolver.js';
import { isPrivateAddress } from '../net/private-address.js';
import type { SessionTarget } from '../smtp/session.js';

/** Addresses tried per host: enough for one dead address, not a slow crawl through a long list. */
const ADDRESSES_PER_HOST = 2;

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
 * Resolves the mail hosts (in preference order) to the addresses SMTP may connect to. Unless
 * `allowPrivateNetworks`, loopback, private, link-local, CGNAT and metadata addresses are left
 * out: a domain must not make us probe our own network.
 */
export async function findMailHosts(dns: DnsClient, hosts: readonly string[], allowPrivateNetworks: boolean): Promise<MailTargets> {
  const resolved = await Promise.all(hosts.map((host) => addressesOf(dns, host)));
  const targets: SessionTarget[] = [];
  const refused: string[] = [];
  hosts.forEach((hostname, index) => {
    const { addresses } = resolved[index]!;
    const allowed = addresses.filter((address) => allowPrivateNetworks || !isPrivateAddress(address));
    refused.push(...addresses.filter((address) => !allowed.includes(address)).map((address) => `${hostname} → ${address}`));
    for (const address of allowed.slice(0, ADDRESSES_PER_HOST)) targets.push({ hostname, address });
  });
  const problems = resolved.map((host) => host.problem).filter((problem) => problem !== '');
  const problem =
    refused.length > 0
      ? `not contacted: the mail host is on a private network (${refused.join(', ')}) and allowPrivateNetworks is off`
      : `the mail hosts have no address (${problems.join(', ')})`;
  return { targets, addresses: [...new Set(targets.map((target) => target.address))], problem: targets.length > 0 ? '' : problem };
}
