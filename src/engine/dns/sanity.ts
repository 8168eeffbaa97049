import type { DnsClient } from './resolver.js';

/**
 * Domains whose MX records every truthful resolver returns: the three biggest mailbox providers.
 * Behind a captive portal, some VPNs and sandboxes the resolver answers "no such domain" for
 * every name; asking these first tells that apart from a domain that really does not exist.
 */
export const RESOLVER_CANARIES: readonly string[] = ['gmail.com', 'outlook.com', 'yahoo.com'];

export interface ResolverSanity {
  truthful: boolean;
  /** Canary domains the resolver gave no MX records for. */
  denied: string[];
}

/** Whether the resolver returns MX records for every canary domain, asked afresh (not from the cache). */
export async function checkResolver(dns: DnsClient): Promise<ResolverSanity> {
  const answers = await Promise.all(RESOLVER_CANARIES.map((domain) => dns.freshMx(domain)));
  const denied = RESOLVER_CANARIES.filter((_, index) => !answers[index]!.ok);
  return { truthful: denied.length === 0, denied };
}

/** Why a "no such domain" from this resolver is not believed, and what to do about it. */
export function untruthfulResolverReason(sanity: ResolverSanity): string {
  return (
    `the resolver is not answering truthfully: it gives no MX records for ${sanity.denied.join(', ')} either, ` +
    'so its "no such domain" means nothing; ask another resolver with --dns-server <ip>'
  );
}
