import type { EgressSpec } from './egress-pool.js';
import { describeProxy, parseProxyUrl } from './proxy-url.js';

/**
 * The address mail hosts see one egress's connections come from, as a key: verifiers with the
 * same key share one per-host session budget (docs/architecture.md "Politeness across processes")
 * and its benches ("Egress"), those with another have their own. Through a proxy that is the proxy
 * (named without its credentials, whatever local address reaches it); else the source address;
 * else `default`, the system's choice.
 */
export function egressKey({ proxy, sourceAddress }: EgressSpec): string {
  if (proxy !== null) return describeProxy(parseProxyUrl(proxy));
  return sourceAddress ?? 'default';
}
