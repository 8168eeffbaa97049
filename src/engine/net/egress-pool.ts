import { isIP } from 'node:net';
import type { EngineOptions } from '../core/types.js';
import type { EgressSettings } from './egress.js';
import { egressKey } from './egress-key.js';
import { parseProxyUrl } from './proxy-url.js';

/** One way out as the user gave it: a proxy (its URL, credentials included) and/or a local source address. */
export interface EgressSpec {
  proxy: string | null;
  sourceAddress: string | null;
}

/** One egress of the pool: what mail hosts see our connections come from. */
export interface Egress extends EgressSpec {
  /** The egress as a key (egressKey): its host slots, its benches; never a credential. */
  key: string;
  /**
   * The egress by its place in the configuration (`proxy 2`, `source address 1`, `default`): what
   * an explanation names, so that nobody reading it learns a proxy's host or the service's addresses.
   */
  label: string;
  /** How its connections are dialled (the proxy parsed). */
  settings: EgressSettings;
}

/**
 * The egresses an options object describes (docs/architecture.md "Egress"), in the order given:
 * - proxies given: each proxy is an egress, reached from the one source address if one is given
 *   (several source addresses with proxies is refused: which would reach which proxy is not said);
 * - else each source address is an egress;
 * - neither: one egress, `default`, the system's choice of address.
 * Two entries naming the same egress (the same proxy host and port, the same address) are refused:
 * they would share one session budget and one bench while looking like two.
 * Throws a RangeError naming the option at fault.
 */
export function egressPool({ proxies, sourceAddresses }: Pick<EngineOptions, 'proxies' | 'sourceAddresses'>): Egress[] {
  for (const address of sourceAddresses) {
    if (isIP(address) === 0) throw new RangeError(`engine option sourceAddresses: ${address} is not an IP address`);
  }
  if (proxies.length > 0 && sourceAddresses.length > 1) {
    throw new RangeError(
      `engine options: ${sourceAddresses.length} source addresses with ${proxies.length === 1 ? 'a proxy' : 'proxies'}: give one source address (the one proxies are reached from), or source addresses without proxies`,
    );
  }
  const specs: EgressSpec[] =
    proxies.length > 0
      ? proxies.map((proxy) => ({ proxy, sourceAddress: sourceAddresses[0] ?? null }))
      : sourceAddresses.length > 0
        ? sourceAddresses.map((sourceAddress) => ({ proxy: null, sourceAddress }))
        : [{ proxy: null, sourceAddress: null }];
  const keys = new Set<string>();
  return specs.map((spec, index) => {
    let settings: EgressSettings;
    try {
      settings = { proxy: spec.proxy === null ? null : parseProxyUrl(spec.proxy), sourceAddress: spec.sourceAddress };
    } catch (error) {
      throw new RangeError(`engine option proxy: ${(error as Error).message}`);
    }
    const key = egressKey(spec);
    if (keys.has(key)) throw new RangeError(`engine options: ${key} is given twice; each egress once`);
    keys.add(key);
    const label = spec.proxy !== null ? `proxy ${index + 1}` : spec.sourceAddress !== null ? `source address ${index + 1}` : 'default';
    return { ...spec, key, label, settings };
  });
}
