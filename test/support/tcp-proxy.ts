import net from 'node:net';

/**
 * A TCP forwarder on loopback standing in for a NAT gateway or load balancer between a client and
 * a server. `dropSilently()` does what such a box does to an idle connection it forgets: the
 * server's side is closed, the client's is left open and hears nothing more, not even a reset;
 * connections made meanwhile are held the same way. `heal()` forwards new connections again.
 */
export interface TcpProxy {
  host: string;
  port: number;
  dropSilently(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, host = '127.0.0.1'): Promise<TcpProxy> {
  let dropping = false;
  const pairs = new Set<{ client: net.Socket; server?: net.Socket }>();
  const silenced = new Set<net.Socket>();

  const silence = (client: net.Socket) => {
    client.removeAllListeners('data');
    client.pause();
    silenced.add(client);
  };

  const listener = net.createServer((client) => {
    client.on('error', () => undefined);
    if (dropping) return silence(client);
    const server = net.connect(target.port, target.host);
    server.on('error', () => client.destroy());
    const pair = { client, server };
    pairs.add(pair);
    client.on('data', (chunk) => server.write(chunk));
    server.on('data', (chunk) => client.write(chunk));
    client.on('close', () => {
      pairs.delete(pair);
      server.destroy();
    });
    server.on('close', () => {
      if (!dropping) client.destroy();
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, host, resolve));
  const { port } = listener.address() as net.AddressInfo;

  return {
    host,
    port,
    dropSilently() {
      dropping = true;
      for (const pair of pairs) {
        pair.server?.removeAllListeners('data');
        pair.server?.destroy();
        silence(pair.client);
      }
      pairs.clear();
    },
    heal() {
      dropping = false;
    },
    async close() {
      for (const socket of silenced) socket.destroy();
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server?.destroy();
      }
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
