import type { DomainStatus } from '../checks/classify.js';
import { findListings } from '../checks/blacklist.js';
import { isDomainReachable } from '../checks/domain-reachable.js';
import { findMailHosts, type MailTargets } from '../checks/mail-hosts.js';
import { domainExists, findMailRoute, type MailRoute } from '../checks/mail-route.js';
import { describeDnsFailure, type DnsClient } from '../dns/resolver.js';
import { untruthfulResolverReason, type ResolverSanity } from '../dns/sanity.js';
import { isDisposableDomain } from '../lists/disposable.js';
import { isKnownProvider } from '../lists/providers.js';
import type { Semaphore } from '../core/semaphore.js';
import { suggestDomain } from '../lists/suggest.js';
import type { EngineOptions } from '../core/types.js';

/** Everything about a domain that every address at it shares, found once per domain. */
export interface DomainFacts {
  route: MailRoute;
  status: DomainStatus;
  isDisposable: boolean;
  /** By the domain, or by its MX host names (the domain itself for an implicit MX). */
  isKnownProvider: boolean;
  mail: MailTargets;
  /** The provider domain this one is likely a typo of, when it takes no mail (lists/suggest.ts). */
  suggestedDomain: string | null;
  /** DNSBL listings of the domain and its mail hosts' addresses; null when none were asked for. */
  listings: Promise<readonly string[] | null>;
  /** Null when the web check did not run (turned off, or no domain to ask). */
  reachable: Promise<boolean | null>;
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

/** Answers that would make every address at the domain `invalid`: believed only from a truthful resolver. */
const DENIALS = new Set<DomainStatus['kind']>(['nxdomain', 'no-mail-host']);
const TAKES_NO_MAIL = new Set<MailRoute['kind']>(['nxdomain', 'null-mx', 'no-mail-host']);

async function believed(status: DomainStatus, { resolverSanity }: FactSources): Promise<DomainStatus> {
  if (!DENIALS.has(status.kind)) return status;
  const sanity = await resolverSanity();
  return sanity.truthful ? status : { kind: 'untrusted-dns', detail: `${untruthfulResolverReason(sanity)} (see \`mailverify doctor\`)` };
}

const NO_TARGETS: MailTargets = { targets: [], addresses: [], problem: 'no mail host' };

export interface FactSources {
  dns: DnsClient;
  /** Whether the resolver tells the truth, asked once and cached by the caller. */
  resolverSanity: () => Promise<ResolverSanity>;
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
  const status = await believed(statusOf(route), sources);
  const mailHosts = route.kind === 'mx' || route.kind === 'implicit-mx' ? route.hosts : [];
  const mail = mailHosts.length > 0 ? await findMailHosts(dns, mailHosts, options.allowPrivateNetworks) : NO_TARGETS;
  return {
    route,
    status,
    isDisposable: isDisposableDomain(asciiDomain),
    isKnownProvider: isKnownProvider(asciiDomain, mailHosts),
    mail,
    suggestedDomain: TAKES_NO_MAIL.has(route.kind) ? suggestDomain(asciiDomain) : null,
    listings:
      status.kind === 'routable' && options.dnsblZones.length > 0 ? findListings(dns, options.dnsblZones, asciiDomain, mail.addresses) : Promise.resolve(null),
    reachable: options.webCheck && domainExists(route) ? webReachable(sources, asciiDomain) : Promise.resolve(null),
  };
}
