import type { DomainStatus } from '../classify.js';
import { findListings } from '../checks/blacklist.js';
import { isDomainReachable } from '../checks/domain-reachable.js';
import { findMailHosts, type MailTargets } from '../checks/mail-hosts.js';
import { domainExists, findMailRoute, type MailRoute } from '../checks/mail-route.js';
import { describeDnsFailure, type DnsClient } from '../dns/resolver.js';
import { isDisposableDomain } from '../lists/disposable.js';
import { isKnownProvider } from '../lists/providers.js';
import type { Semaphore } from '../semaphore.js';
import type { EngineOptions } from '../types.js';

/** Everything about a domain that every address at it shares, found once per domain. */
export interface DomainFacts {
  route: MailRoute;
  status: DomainStatus;
  isDisposable: boolean;
  /** By the domain, or by its MX host names (the domain itself for an implicit MX). */
  isKnownProvider: boolean;
  mail: MailTargets;
  /** DNSBL listings of the domain and its mail hosts' addresses. */
  listings: Promise<readonly string[]>;
  reachable: Promise<boolean>;
}

function statusOf(route: MailRoute): DomainStatus {
  switch (route.kind) {
    case 'mx':
    case 'implicit-mx':
      return { kind: 'routable' };
    case 'dns-failure':
      return { kind: 'dns-failure', detail: describeDnsFailure(route.failure) };
    default:
      return { kind: route.kind };
  }
}

const NO_TARGETS: MailTargets = { targets: [], addresses: [], problem: 'no mail host' };

export interface FactSources {
  dns: DnsClient;
  options: EngineOptions;
  /** Web checks at once: a list of many domains must not open thousands of sockets in one go. */
  webSlots: Semaphore;
}

async function webReachable({ dns, options, webSlots }: FactSources, asciiDomain: string): Promise<boolean> {
  const own = await dns.addresses(asciiDomain);
  if (!own.ok) return false;
  const check = { ports: options.webPorts, timeoutMs: options.connectTimeoutMs, allowPrivateNetworks: options.allowPrivateNetworks };
  return webSlots.use(() => isDomainReachable(asciiDomain, own.records, check));
}

/** DNS facts first (SMTP waits for them); DNSBL and web checks start here and finish alongside SMTP. */
export async function gatherDomainFacts(sources: FactSources, asciiDomain: string): Promise<DomainFacts> {
  const { dns, options } = sources;
  const route = await findMailRoute(dns, asciiDomain);
  const status = statusOf(route);
  const mailHosts = route.kind === 'mx' || route.kind === 'implicit-mx' ? route.hosts : [];
  const mail = mailHosts.length > 0 ? await findMailHosts(dns, mailHosts, options.allowPrivateNetworks) : NO_TARGETS;
  return {
    route,
    status,
    isDisposable: isDisposableDomain(asciiDomain),
    isKnownProvider: isKnownProvider(asciiDomain, mailHosts),
    mail,
    listings: status.kind === 'routable' ? findListings(dns, options.dnsblZones, asciiDomain, mail.addresses) : Promise.resolve([]),
    reachable: options.webCheck && domainExists(route) ? webReachable(sources, asciiDomain) : Promise.resolve(false),
  };
}
