/** doctor's port-25 line against hosts that take the connection and then fail: bounded by the connect timeout, and naming the fix. */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseNetwork } from '../../src/engine/diagnose.js';
import { resolveEngineOptions } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { fixtureOptions } from '../support/engine-fixtures.js';
import { freePort } from '../support/smtp-server.js';

const SILENT = '127.0.13.120';
const RESETTING = '127.0.13.121';
const CONNECT_TIMEOUT_MS = 600;

let dns: DnsFixture;
let port: number;
const servers: Server[] = [];
const sockets = new Set<Socket>();

/** Takes connections and does `withSocket` to each: never greets, or resets it after a while. */
async function listen(host: string, withSocket: (socket: Socket) => void): Promise<void> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    withSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  servers.push(server);
}

beforeAll(async () => {
  dns = await startDnsServer({}, { host: '127.0.13.9' });
  port = await freePort([SILENT, RESETTING]);
  await listen(SILENT, () => undefined);
  // A reset instead of a greeting, as a middlebox's (`read ECONNRESET`).
  await listen(RESETTING, (socket) => void setTimeout(() => socket.resetAndDestroy(), 50));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await dns?.close();
});

async function portLine(hosts: string[]) {
  // A command timeout far beyond the connect timeout: the check must not wait for it.
  const options = resolveEngineOptions(fixtureOptions(dns, port, { connectTimeoutMs: CONNECT_TIMEOUT_MS, commandTimeoutMs: 15_000 }));
  const started = Date.now();
  const diagnoses = await diagnoseNetwork(options, { mailHosts: hosts });
  return { line: diagnoses.find((diagnosis) => diagnosis.check === `port ${port}`)!, ms: Date.now() - started };
}

describe('doctor on port 25 that takes the connection and says nothing', () => {
  it('gives up within the connect timeout and names --proxy and a host where the port is open', async () => {
    const { line, ms } = await portLine([SILENT]);
    expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS * 2.5);
    expect(line).toMatchObject({ status: 'problem', detail: expect.stringContaining('use --proxy or run where port') });
  });

  it('names the fix after a reset too', async () => {
    const resetting = await portLine([RESETTING]);
    expect(resetting.line.status).toBe('problem');
    expect(resetting.line.detail).toMatch(/ECONNRESET.*use --proxy or run where port \d+ is open/);
  });
});
