import http from 'node:http';
import https from 'node:https';
import { isPrivateAddress } from '../net/private-address.js';

/** Addresses asked per port (IPv4 first): a second covers one dead address, more would only add sockets. */
const ADDRESSES_TRIED = 2;
const HTTPS_PORT = 443;

export interface WebCheckOptions {
  ports: readonly number[];
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

/** One HEAD request to `address:port` for `domain`; resolves true on any HTTP response. */
function answers(domain: string, address: string, port: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const secure = port === HTTPS_PORT;
    const request = (secure ? https : http).request({
      host: address,
      port,
      method: 'HEAD',
      path: '/',
      headers: { host: domain, 'user-agent': 'mailverify' },
      agent: false,
      signal,
      // Any answer counts, whatever its certificate: we ask whether a server is there.
      ...(secure ? { servername: domain, rejectUnauthorized: false } : {}),
    });
    request.once('response', (response) => {
      response.resume();
      request.destroy();
      resolve(true);
    });
    request.once('error', () => resolve(false));
    request.end();
  });
}

/**
 * The `domainReachable` check: does a web server at the domain's own A/AAAA answer HTTP(S) on
 * one of the ports within the timeout? Private addresses are not asked unless allowed.
 */
export async function isDomainReachable(domain: string, addresses: readonly string[], options: WebCheckOptions): Promise<boolean> {
  const allowed = addresses.filter((address) => options.allowPrivateNetworks || !isPrivateAddress(address)).slice(0, ADDRESSES_TRIED);
  if (allowed.length === 0 || options.ports.length === 0) return false;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    const attempts = options.ports.flatMap((port) => allowed.map((address) => answers(domain, address, port, controller.signal)));
    // The first yes wins; all no (or the deadline) is a no.
    return await new Promise<boolean>((resolve) => {
      for (const attempt of attempts) void attempt.then((yes) => yes && resolve(true));
      void Promise.all(attempts).then(() => resolve(false));
    });
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
