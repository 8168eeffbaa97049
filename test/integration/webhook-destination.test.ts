import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { describeFailure } from '../../src/server/webhooks/deliverer.js';
import { checkDestination, deliveryAgent, DestinationRefused, isNeverReached } from '../../src/server/webhooks/destination.js';
import { startHttpServer, type HttpFixture } from '../support/http-server.js';

let receiver: HttpFixture;
beforeAll(async () => {
  receiver = await startHttpServer();
});
afterAll(() => receiver.close());

describe('where webhooks may go', () => {
  it('refuses at registration a URL that is malformed, carries credentials, or reaches a loopback, private or metadata address', async () => {
    for (const url of [
      'not a url',
      'ftp://example.org/hook',
      'https://user:pass@example.org/hook',
      'http://127.0.0.1:8080/',
      'http://[::1]/',
      'http://169.254.169.254/latest',
      'http://10.1.2.3/',
      'http://localhost/',
    ]) {
      await expect(checkDestination(url, false), url).rejects.toBeInstanceOf(DestinationRefused);
    }
    expect((await checkDestination('http://localhost/', true)).hostname).toBe('localhost');
  });

  it('refuses link-local and metadata addresses even where private webhooks are allowed, in every spelling', async () => {
    for (const url of [
      'http://169.254.169.254/latest',
      'http://169.254.0.1/',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[fe80::1]/',
      'http://100.100.100.200/',
    ]) {
      const refusal = await checkDestination(url, true).catch((error: unknown) => error);
      expect(refusal, url).toBeInstanceOf(DestinationRefused);
      expect((refusal as Error).message, url).toMatch(/link-local or cloud metadata address; webhooks are never sent there\.$/);
    }
    for (const ip of ['169.254.169.254', 'fd00:ec2::254', '::ffff:a9fe:a9fe']) expect(isNeverReached(ip), ip).toBe(true);
    for (const ip of ['127.0.0.1', '10.0.0.1', 'fd00:ec2::253', '93.184.215.14']) expect(isNeverReached(ip), ip).toBe(false);
  });

  it("records a failed attempt by its cause's code, never the address the system message names", async () => {
    // A port nobody listens on: bound, then let go.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: bound } = probe.address() as { port: number };
        probe.close(() => resolve(bound));
      });
    });
    const agent = deliveryAgent(true);
    try {
      const error = await request(`http://127.0.0.1:${port}/hook`, { method: 'POST', body: '{}', dispatcher: agent }).catch((caught: unknown) => caught);
      expect(String((error as Error).message)).toContain('127.0.0.1');
      expect(describeFailure(error)).toBe('the request failed (ECONNREFUSED)');
    } finally {
      await agent.close();
    }
    expect(describeFailure(new DestinationRefused('x.example resolves to a loopback or private network address'))).toBe(
      'x.example resolves to a loopback or private network address',
    );
  });

  it('never says what a name resolved to', async () => {
    const refusal = (await checkDestination('http://localhost:8080/hook', false).catch((error: unknown) => error)) as Error;
    expect(refusal).toBeInstanceOf(DestinationRefused);
    expect(refusal.message).toBe('localhost resolves to a loopback or private network address; webhooks are not sent there.');
  });

  it('refuses again at the connection a name that resolves to a private address then (DNS rebinding), and sends nothing there', async () => {
    // `localhost` stands for a name that passed the check at registration and resolves to loopback now.
    const url = `http://localhost:${receiver.port}/hook`;
    const guarded = deliveryAgent(false);
    const open = deliveryAgent(true);
    try {
      const error = await request(url, { method: 'POST', body: '{}', dispatcher: guarded }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DestinationRefused);
      expect((error as Error).message).toBe('localhost resolves to a loopback or private network address; webhooks are not sent there');
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
