/**
 * Slow and idle clients cannot hold connections: the HTTP server's header, request and keep-alive
 * timeouts (explicit, docs/operating.md "Run the service") close them, a request cut off with a 408
 * problem+json. The timeouts here are short so that the test is quick; the bounds waited for are
 * generous multiples of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_TIMEOUTS } from '../../src/server/http/server.js';
import { connectRaw, type RawConnection } from '../support/raw-http.js';
import { call, startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';

const TIMEOUTS = { headersMs: 600, requestMs: 1_500, keepAliveMs: 400 };
/** Far longer than any of the timeouts: a connection still open by then was not closed by them. */
const BOUND_MS = 15_000;
const TRICKLE_MS = 150;

/** What the server sent before it closed the connection, or a failure if it kept it open past `boundMs`. */
async function closedByServer(connection: RawConnection, trickle?: () => void, boundMs = BOUND_MS): Promise<string> {
  const timer = trickle ? setInterval(trickle, TRICKLE_MS) : undefined;
  let bound: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      connection.closed,
      new Promise<never>((_, reject) => {
        bound = setTimeout(() => reject(new Error(`the server kept the connection open for ${boundMs} ms`)), boundMs);
      }),
    ]);
  } finally {
    clearInterval(timer);
    clearTimeout(bound);
    connection.socket.destroy();
  }
}

function expectRequestTimeout(received: string): void {
  expect(received).toMatch(/^HTTP\/1\.1 408 /);
  expect(received).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  expect(received).toContain('"code":"request_timeout"');
}

describe('slow and idle clients', () => {
  let world: MailWorld;
  let app: TestApp;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    app = await startTestApp({ world, httpTimeouts: TIMEOUTS });
  });

  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('closes a connection that sends nothing', async () => {
    const received = await closedByServer(await connectRaw(app.baseUrl));
    // Nothing was asked, so an answer is optional; if there is one, it is the 408.
    if (received !== '') expectRequestTimeout(received);
  });

  it('closes a slowloris connection that sends a header line every 150 ms, with a 408', async () => {
    const connection = await connectRaw(app.baseUrl);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: service.test\r\n');
    let line = 0;
    const received = await closedByServer(connection, () => connection.socket.write(`X-Slow-${line++}: still here\r\n`));
    expectRequestTimeout(received);
    // It kept sending for longer than the headers timeout, so the timeout, not a limit on size, cut it.
    expect(line * TRICKLE_MS).toBeGreaterThanOrEqual(TIMEOUTS.headersMs / 2);
  });

  it('closes a connection that trickles its body byte by byte, with a 408', async () => {
    const connection = await connectRaw(app.baseUrl);
    connection.socket.write('POST /v1/auth/login HTTP/1.1\r\nHost: service.test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    const received = await closedByServer(connection, () => connection.socket.write(' '));
    expectRequestTimeout(received);
  });

  it('closes a keep-alive connection left idle after its response', async () => {
    const connection = await connectRaw(app.baseUrl);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: service.test\r\n\r\n');
    // Bounded below the 10 s default keep-alive timeout, so only the configured 400 ms can pass.
    const received = await closedByServer(connection, undefined, HTTP_TIMEOUTS.keepAliveMs / 2);
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toContain('{"status":"ok"}');
  });

  it('still answers clients that are quick enough', async () => {
    expect((await call(app.baseUrl, 'GET', '/healthz')).status).toBe(200);
  });
});
