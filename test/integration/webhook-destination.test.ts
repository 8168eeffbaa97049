import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { describeFailure } from '../../src/server/webhooks/deliverer.js';
import { checkDestination, deliveryAgent, DestinationRefused, isNeverReached, refusedDestination } from '../../src/server/webhooks/destination.js';
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
      expect((refusal as Error).message, url).toBe(refusedDestination(new URL(url).hostname));
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
    expect(describeFailure(new DestinationRefused(refusedDestination('x.example')))).toBe(refusedDestination('x.example'));
  });

  it('never says what a name resolved to, nor whether it resolved: one message for every refusal', async () => {
    const refusalOf = async (url: string, allowPrivateWebhooks: boolean) =>
      ((await checkDestination(url, allowPrivateWebhooks).catch((error: unknown) => error)) as Error).message;
    const expected =
      'Webhooks are not sent to hook.example.invalid: a receiver must resolve, and only to public addresses (a receiver on a private network, such as a test one, needs the service run with --allow-private-webhooks).';
    // A name that does not resolve, and names that resolve to a private and to a metadata address: the same words.
    expect(await refusalOf('http://hook.example.invalid/hook', false)).toBe(expected);
    expect(await refusalOf('http://hook.example.invalid/hook', true)).toBe(expected);
    const privateName = await refusalOf('http://localhost:8080/hook', false);
    expect(privateName).toBe(expected.replace('hook.example.invalid', 'localhost'));
    for (const url of ['http://10.1.2.3/', 'http://169.254.169.254/', 'http://[::1]/']) {
      expect(await refusalOf(url, false), url).toBe(expected.replace('hook.example.invalid', new URL(url).hostname));
    }
  });

  it('refuses again at the connection a name that resolves to a private address then (DNS rebinding), and sends nothing there', async () => {
    // `localhost` stands for a name that passed the check at registration and resolves to loopback now.
    const url = `http://localhost:${receiver.port}/hook`;
    const guarded = deliveryAgent(false);
    const open = deliveryAgent(true);
    try {
      const error = await request(url, { method: 'POST', body: '{}', dispatcher: guarded }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DestinationRefused);
      expect((error as Error).message).toBe(refusedDestination('localhost'));
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
