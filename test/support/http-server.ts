/** A plain HTTP server on loopback that answers 200 to anything: the target of `domainReachable`. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpFixtureOptions {
  /** A 127.0.0.x address; 127.0.0.1 unless given. */
  host?: string;
  /** Port to listen on; an ephemeral one unless given. */
  port?: number;
}

export interface HttpFixture {
  host: string;
  port: number;
  requestCount(): number;
  close(): Promise<void>;
}

export async function startHttpServer(options: HttpFixtureOptions = {}): Promise<HttpFixture> {
  const host = options.host ?? '127.0.0.1';
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests++;
    request.resume();
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    host,
    port: (server.address() as AddressInfo).port,
    requestCount: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
