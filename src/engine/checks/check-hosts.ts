/**
 * The mail hosts our own network is checked against: doctor's port line, each egress's standing,
 * and the port-25 confirmation during a run.
 */
import { isIP } from 'node:net';
import type { EngineOptions } from '../core/types.js';
import { describeDnsFailure, type DnsClient } from '../dns/resolver.js';
import { RESOLVER_CANARIES } from '../dns/sanity.js';
import type { CheckTarget } from '../net/port25.js';
import { isPrivateAddress } from '../net/private-address.js';
import { findMailRoute } from './mail-route.js';

async function targetOf(dns: DnsClient, host: string, allowPrivateNetworks: boolean): Promise<CheckTarget> {
  let address = host;
  if (isIP(host) === 0) {
    const answer = await dns.addresses(host);
    if (!answer.ok) return { host, unusable: `DNS ${describeDnsFailure(answer.failure)}` };
    address = answer.records[0]!;
  }
  if (!allowPrivateNetworks && isPrivateAddress(address))
    return { host, unusable: `${address} is on a private network and private networks are not allowed (--allow-private-networks)` };
  return { host, address };
}

/**
 * The given hosts, else the operator's port-25 check hosts, else the first MX host of each provider
 * the resolver knows: hosts no customer picks (docs/architecture.md "Egress").
 */
export async function mailTargets(dns: DnsClient, options: EngineOptions, given: readonly string[] | undefined): Promise<CheckTarget[]> {
  const named = given ?? (options.port25CheckHosts.length > 0 ? options.port25CheckHosts : undefined);
  const hosts =
    named ??
    (
      await Promise.all(
        RESOLVER_CANARIES.map(async (domain) => {
          const route = await findMailRoute(dns, domain);
          return route.kind === 'mx' ? route.hosts[0]! : null;
        }),
      )
    ).filter((host): host is string => host !== null);
  return Promise.all(hosts.map((host) => targetOf(dns, host, options.allowPrivateNetworks)));
}
