import { isIP } from 'node:net';
import type { TrustProxy } from '../../server/settings.js';
import { UsageError } from '../output/errors.js';

/** Names proxy-addr (fastify's trustProxy) takes for whole ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
/** More proxies in a row than anyone runs: a typo, not a chain. */
const MAX_HOPS = 10;

/** An address, `address/prefix` (bits or a netmask), or one of proxy-addr's range names. */
function isProxyAddress(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (/^\d+$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(prefix) === 4;
}

/** `--trust-proxy 1`: the count without the proxies it counts. */
function hopsAlone(raw: string): UsageError {
  return new UsageError(
    `--trust-proxy ${raw}: a hop count alone believes the X-Forwarded-For of any client that reaches the port directly; name the proxies too`,
    `e.g. --trust-proxy 10.0.0.5,${raw} (the proxies' addresses or ranges, then the hop count)`,
  );
}

/**
 * `--trust-proxy` > MAILVERIFY_TRUST_PROXY: the reverse proxies whose X-Forwarded-For and
 * X-Forwarded-Proto the service believes (docs/operating.md "TLS and a reverse proxy"), as a comma list of
 * addresses and CIDR ranges, with at most one number among them: how many proxies in a row stand in
 * front of it. Undefined when neither is given: the headers count for nothing.
 */
export function parseTrustProxy(flag: string | undefined, env: NodeJS.ProcessEnv): TrustProxy | undefined {
  const raw = (flag ?? env.MAILVERIFY_TRUST_PROXY ?? '').trim();
  if (raw === '') return undefined;
  const entries = raw.split(',').map((entry) => entry.trim());
  const counts = entries.filter((entry) => /^\d+$/.test(entry));
  const addresses = entries.filter((entry) => !/^\d+$/.test(entry));
  const wrong = addresses.find((entry) => !isProxyAddress(entry));
  if (wrong !== undefined) {
    throw new UsageError(
      `--trust-proxy: "${wrong}" is not an address, a CIDR range or a hop count`,
      'e.g. --trust-proxy 127.0.0.1 or --trust-proxy 10.0.0.0/8,fd00::/8 or --trust-proxy 10.0.0.5,1',
    );
  }
  if (counts.length > 1) throw new UsageError(`--trust-proxy takes one hop count, got ${counts.join(' and ')}`);
  if (counts.length === 0) return { addresses };
  const hops = Number(counts[0]);
  if (hops < 1 || hops > MAX_HOPS) throw new UsageError(`--trust-proxy takes 1 to ${MAX_HOPS} hops, got ${counts[0]}`);
  if (addresses.length === 0) throw hopsAlone(raw);
  return { addresses, hops };
}
