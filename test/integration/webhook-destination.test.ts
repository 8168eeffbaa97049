import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDestination, deliveryAgent, DestinationRefused } from '../../src/server/webhooks/destination.js';
import { startHttpServer, type HttpFixture } from '../support/http-server.js';

let receiver: HttpFixture;
beforeAll(async () => {
  receiver = await startHttpServer();
});
afterAll(() => receiver.close());

describe('where webhooks may go', () => {
  it('refuses at registration a URL that is malformed, carries credentials, or reaches a loopback, private or metadata address', async () => {
    for (const url of ['not a url', 'ftp://example.org/hook', 'https://user:pass@example.org/hook', 'http://127.0.0.1:8080/', 'http://[::1]/', 'http://169.254.169.254/latest', 'http://10.1.2.3/', 'http://localhost/']) {
      await expect(checkDestination(url, false), url).rejects.toBeInstanceOf(DestinationRefused);
    }
    expect((await checkDestination('http://localhost/', true)).hostname).toBe('localhost');
  });

  it('refuses again at the connection a name that resolves to a private address then (DNS rebinding), and sends nothing there', async () => {
    // `localhost` stands for a name that passed the check at registration and resolves to loopback now.
    const url = `http://localhost:${receiver.port}/hook`;
    const guarded = deliveryAgent(false);
    const open = deliveryAgent(true);
    try {
      const error = await request(url, { method: 'POST', body: '{}', dispatcher: guarded }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DestinationRefused);
      expect((error as Error).message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), on a private network$/);
      expect(receiver.requestCount()).toBe(0);
      // The same request on the agent of a private install arrives (to 127.0.0.1, where the receiver listens;
      // `localhost` may resolve to ::1 first): the refusal above was the guard's.
      const delivered = await request(url.replace('localhost', '127.0.0.1'), { method: 'POST', body: '{}', dispatcher: open });
      await delivered.body.text();
      expect(delivered.statusCode).toBe(200);
      expect(receiver.requestCount()).toBe(1);
    } finally {
      await Promise.all([guarded.close(), open.close()]);
    }
  });
});
