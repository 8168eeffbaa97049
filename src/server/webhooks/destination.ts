import { lookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';
import { isPrivateAddress } from '../../engine/net/private-address.js';

/**
 * Where webhooks may go (docs/architecture.md "Webhooks"). A receiver's URL is the account owner's
 * to choose, so an endpoint that resolves into a loopback or private range is refused unless the
 * install allows private webhooks (`--allow-private-webhooks`, for test receivers and private
 * installs; the engine's `--allow-private-networks` does not cover webhooks), and a link-local or
 * cloud metadata address always: at registration (a 400), and again at each connection, because
 * a name may resolve elsewhere later (DNS rebinding). Every refused destination gets the one
 * message, REFUSED: a name that does not resolve, one that resolves to a private address and one
 * that resolves to a metadata address answered apart would map an install's internal DNS for
 * anyone outside (docs/api.md "Webhooks").
 */

export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

/** Link-local and cloud metadata addresses: refused whatever the flags, no receiver is ever there. */
const NEVER_REACHED = new BlockList();
NEVER_REACHED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local; the AWS/GCP/Azure metadata service 169.254.169.254
NEVER_REACHED.addAddress('100.100.100.200', 'ipv4'); // Alibaba's metadata service
NEVER_REACHED.addAddress('192.0.0.192', 'ipv4'); // Oracle's metadata service
NEVER_REACHED.addAddress('fd00:ec2::254', 'ipv6'); // AWS's metadata service over IPv6
NEVER_REACHED.addSubnet('fe80::', 10, 'ipv6'); // link-local

/** True for an address no webhook is sent to, whatever the flags (IPv4-mapped and NAT64 forms included). */
export function isNeverReached(ip: string): boolean {
  const address = ip
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .split('%')[0]!;
  const family = isIP(address);
  if (family === 4) return NEVER_REACHED.check(address, 'ipv4');
  if (family !== 6) return true;
  const nat64 = /^64:ff9b::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(new URL(`http://[${address}]`).hostname.slice(1, -1));
  if (nat64) {
    const [high, low] = [parseInt(nat64[1]!, 16), parseInt(nat64[2]!, 16)];
    return NEVER_REACHED.check([high >> 8, high & 0xff, low >> 8, low & 0xff].join('.'), 'ipv4');
  }
  return NEVER_REACHED.check(address, 'ipv6');
}

/** Whether a delivery may connect to this address: never to link-local or metadata, to private ranges only when allowed. */
function refusedAddress(ip: string, allowPrivateWebhooks: boolean): boolean {
  return isNeverReached(ip) || (!allowPrivateWebhooks && isPrivateAddress(ip));
}

/** What every refused destination is told, whichever rule refused it. */
export const refusedDestination = (host: string): string =>
  `Webhooks are not sent to ${host}: a receiver must resolve, and only to public addresses (a receiver on a private network, such as a test one, needs the service run with --allow-private-webhooks).`;

/** The URL as an endpoint may have it: http(s), no credentials in it. Throws DestinationRefused. */
function endpointUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DestinationRefused(`"${text}" is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DestinationRefused('A webhook URL must be http: or https:.');
  if (url.username !== '' || url.password !== '') throw new DestinationRefused('A webhook URL must not carry credentials; every delivery is signed instead.');
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Every address the URL's host resolves to (the host itself when it is an IP address). */
async function addressesOf(url: URL): Promise<string[]> {
  const host = hostOf(url);
  if (isIP(host)) return [host];
  return new Promise((resolve, reject) =>
    lookup(host, { all: true }, (error, addresses: LookupAddress[]) =>
      error ? reject(new DestinationRefused(refusedDestination(url.hostname))) : resolve(addresses.map((each) => each.address)),
    ),
  );
}

/** Refuses (DestinationRefused) a URL that is malformed or reaches an address webhooks are not sent to. */
export async function checkDestination(text: string, allowPrivateWebhooks: boolean): Promise<URL> {
  const url = endpointUrl(text);
  const addresses = await addressesOf(url);
  if (addresses.some((address) => refusedAddress(address, allowPrivateWebhooks))) throw new DestinationRefused(refusedDestination(url.hostname));
  return url;
}

/**
 * The connections deliveries are made on. The name is resolved for the connection here and a
 * refused address turned away, so that what was checked is what is reached (an IP address in the
 * URL is not looked up: checkDestination covers it).
 */
export function deliveryAgent(allowPrivateWebhooks: boolean): Agent {
  const guardedLookup: typeof lookup = ((hostname: string, options: object, callback: (error: Error | null, address?: unknown, family?: number) => void) =>
    lookup(hostname, options, (error, address: string | LookupAddress[], family?: number) => {
      if (error) return callback(error);
      const addresses = typeof address === 'string' ? [address] : address.map((each) => each.address);
      if (addresses.some((each) => refusedAddress(each, allowPrivateWebhooks))) return callback(new DestinationRefused(refusedDestination(hostname)));
      callback(null, address, family);
    })) as typeof lookup;
  return new Agent({ connect: { lookup: guardedLookup } });
}
