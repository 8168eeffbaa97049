import { isIP } from 'node:net';
import type { TrustProxy } from '../../server/routes/app-config.js';
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

/**
 * `--trust-proxy` > MAILVERIFY_TRUST_PROXY: the reverse proxies whose X-Forwarded-For and
 * X-Forwarded-Proto the service believes (docs/operating.md "TLS and a reverse proxy"), as a comma list of
 * addresses and CIDR ranges, or as the number of proxy hops in front of it. Undefined when neither
 * is given: the headers count for nothing.
 */
export function parseTrustProxy(flag: string | undefined, env: NodeJS.ProcessEnv): TrustProxy | undefined {
  const raw = (flag ?? env.MAILVERIFY_TRUST_PROXY ?? '').trim();
  if (raw === '') return undefined;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > MAX_HOPS) throw new UsageError(`--trust-proxy takes 1 to ${MAX_HOPS} hops, got ${raw}`);
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !isProxyAddress(entry));
  if (wrong !== undefined) {
    throw new UsageError(
      `--trust-proxy: "${wrong}" is not an address, a CIDR range or a hop count`,
      'e.g. --trust-proxy 127.0.0.1 or --trust-proxy 10.0.0.0/8,fd00::/8 or --trust-proxy 1',
    );
  }
  return entries;
}
