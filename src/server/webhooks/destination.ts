import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent } from 'undici';
import { isPrivateAddress } from '../../engine/net/private-address.js';

/**
 * Where webhooks may go. A receiver's URL is the account owner's to choose, so without
 * `allowPrivateNetworks` (the engine's option, for tests and private installs) an endpoint that
 * resolves into a loopback, private or metadata range is refused: at registration (a 400), and
 * again at each connection, because a name may resolve elsewhere later (DNS rebinding).
 */

export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

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
      error ? reject(new DestinationRefused(`${host} does not resolve (${error.code ?? error.message}).`)) : resolve(addresses.map((each) => each.address)),
    ),
  );
}

/** Refuses (DestinationRefused) a URL that is malformed or, unless allowed, reaches a private network. */
export async function checkDestination(text: string, allowPrivateNetworks: boolean): Promise<URL> {
  const url = endpointUrl(text);
  if (allowPrivateNetworks) return url;
  const refused = (await addressesOf(url)).filter(isPrivateAddress);
  if (refused.length > 0) throw new DestinationRefused(`${hostOf(url)} resolves to ${refused.join(', ')}, on a loopback, private or metadata network; webhooks are not sent there.`);
  return url;
}

/**
 * The connections deliveries are made on. Without `allowPrivateNetworks`, the name is resolved for
 * the connection here and a private address refused, so that what was checked is what is reached
 * (an IP address in the URL is not looked up: checkDestination covers it).
 */
export function deliveryAgent(allowPrivateNetworks: boolean): Agent {
  if (allowPrivateNetworks) return new Agent();
  const guardedLookup: typeof lookup = ((hostname: string, options: object, callback: (error: Error | null, address?: unknown, family?: number) => void) =>
    lookup(hostname, options, (error, address: string | LookupAddress[], family?: number) => {
      if (error) return callback(error);
      const addresses = typeof address === 'string' ? [address] : address.map((each) => each.address);
      const refused = addresses.find(isPrivateAddress);
      if (refused !== undefined) return callback(new DestinationRefused(`${hostname} resolves to ${refused}, on a private network`));
      callback(null, address, family);
    })) as typeof lookup;
  return new Agent({ connect: { lookup: guardedLookup } });
}
