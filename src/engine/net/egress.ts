import net from 'node:net';
import { SocksClient } from 'socks';
import type { EgressSpec } from './egress-pool.js';
import { describeProxy, parseProxyUrl, type ProxySettings } from './proxy-url.js';

/** How SMTP connections leave this host: directly or through a SOCKS5 proxy, from a chosen address or any. */
export interface EgressSettings {
  proxy: ProxySettings | null;
  /** Local address outgoing connections are bound to; null lets the system choose. */
  sourceAddress: string | null;
}

/**
 * Why no connection was made. `timedOut` only for a direct connection that got no answer at all
 * (see port25.ts); `condition` when the fault is on our side: the port is blocked on our network,
 * or our proxy failed.
 */
export class DialError extends Error {
  override name = 'DialError';
  /**
   * On a timeout the port-25 watch may still be judging (net/port25.ts): the blocked-port reason
   * once its check finds the port blocked, or null once the timeout stands as the host's own.
   */
  portCheck?: Promise<string | null>;
  constructor(
    message: string,
    readonly timedOut = false,
    readonly condition: 'port-blocked' | 'proxy' | null = null,
  ) {
    super(message);
  }
}

/** Opens a TCP connection to an IP address (names are resolved before, by us). */
export type Dialer = (address: string, port: number, timeoutMs: number) => Promise<net.Socket>;

function dialDirect(sourceAddress: string | null): Dialer {
  return (address, port, timeoutMs) =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ host: address, port, ...(sourceAddress ? { localAddress: sourceAddress } : {}) });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DialError(`no connection to ${address}:${port} within ${timeoutMs} ms`, true));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        socket.destroy();
        const from = sourceAddress && error.code === 'EADDRNOTAVAIL' ? ` from ${sourceAddress}` : '';
        reject(new DialError(`cannot connect to ${address}:${port}${from}: ${error.code ?? error.message}`));
      });
    });
}

/**
 * Through the proxy, to the address we resolved ourselves: the proxy never sees a name, so a
 * domain cannot steer it into a private network we refused. The proxy's error is reported by its
 * message only: the error object carries the options, password included.
 */
function dialThroughProxy(proxy: ProxySettings, sourceAddress: string | null): Dialer {
  return async (address, port, timeoutMs) => {
    try {
      const { socket } = await SocksClient.createConnection({
        proxy: { host: proxy.host, port: proxy.port, type: 5, userId: proxy.username, password: proxy.password },
        command: 'connect',
        destination: { host: address, port },
        timeout: timeoutMs,
        // socks connects to the proxy with these, its own host and port put over ours.
        ...(sourceAddress ? { socket_options: { host: proxy.host, port: proxy.port, localAddress: sourceAddress } } : {}),
      });
      return socket;
    } catch (error) {
      const message = (error as Error).message;
      // The proxy answered, and the host behind it refused or was unreachable: the host's fault, not the proxy's.
      const hostFailed = message.startsWith('Socks5 proxy rejected connection');
      throw new DialError(`${describeProxy(proxy)} gave no connection to ${address}:${port}: ${message}`, false, hostFailed ? null : 'proxy');
    }
  };
}

function createDialer(settings: EgressSettings): Dialer {
  return settings.proxy ? dialThroughProxy(settings.proxy, settings.sourceAddress) : dialDirect(settings.sourceAddress);
}

/** The dialer of one egress (its `proxy` as given by the user, checked by resolveEngineOptions). */
export function dialerFor(egress: EgressSpec): Dialer {
  return createDialer({ proxy: egress.proxy === null ? null : parseProxyUrl(egress.proxy), sourceAddress: egress.sourceAddress });
}
