/**
 * Known mailbox providers from data/providers.json: by the address's domain (gmail.com) or by the
 * domain's MX hosts (a Google Workspace domain's aspmx.l.google.com), each entry with its reason.
 */
import { nameAndParents, normaliseDomain, once, readDataFile } from './load.js';

interface ProviderEntry {
  name: string;
  why: string;
  domains: string[];
  mxSuffixes: string[];
}

const providerIndex = once(() => {
  const { providers } = JSON.parse(readDataFile('providers.json')) as { providers: ProviderEntry[] };
  const domainList = providers.flatMap((provider) => provider.domains);
  return {
    domainList,
    domains: new Set(domainList),
    mxSuffixes: new Set(providers.flatMap((provider) => provider.mxSuffixes)),
    providerBySuffix: new Map(providers.flatMap((provider) => provider.mxSuffixes.map((suffix) => [suffix, provider.name] as const))),
  };
});

/** `domain` matches exactly; an MX host matches when it is, or is under, a listed suffix. */
export function isKnownProvider(domain: string, mxHosts: Iterable<string> = []): boolean {
  const { domains, mxSuffixes } = providerIndex();
  if (domains.has(normaliseDomain(domain))) return true;
  for (const host of mxHosts) {
    if (nameAndParents(host).some((name) => mxSuffixes.has(name))) return true;
  }
  return false;
}

/** The provider whose MX host this is (by the same suffixes), if it is a known one. */
export function providerOfMxHost(host: string): string | undefined {
  const { providerBySuffix } = providerIndex();
  for (const name of nameAndParents(host)) {
    const provider = providerBySuffix.get(name);
    if (provider) return provider;
  }
  return undefined;
}

/** Every provider domain, in the file's order (the biggest providers first). */
export function knownProviderDomains(): readonly string[] {
  return providerIndex().domainList;
}
