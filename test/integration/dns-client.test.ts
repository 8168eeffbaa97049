// The engine's DNS client against a real DNS server on loopback: the lookup budget it is given is
// the budget it keeps, whatever c-ares learns about the server's speed along the way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsClient } from '../../src/engine/dns/resolver.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';

const SLOW_ANSWER_MS = 2_500;
const BUDGET_MS = 8_000;

let dns: DnsFixture;

beforeAll(async () => {
  dns = await startDnsServer();
  for (let index = 0; index < 40; index += 1) {
    dns.set(`fast${index}.test`, { records: [{ type: 'MX', exchange: `mx.fast${index}.test`, priority: 10 }] });
  }
  dns.set('slow.test', { delayMs: SLOW_ANSWER_MS, records: [{ type: 'MX', exchange: 'mx.slow.test', priority: 10 }] });
});

afterAll(async () => {
  await dns?.close();
});

describe('DnsClient', () => {
  it('waits its whole budget for a slow answer after many fast ones (c-ares shortens its own timeouts)', async () => {
    const client = new DnsClient({ servers: [dns.server], timeoutMs: BUDGET_MS });
    for (let index = 0; index < 40; index += 1) {
      expect((await client.mx(`fast${index}.test`)).ok).toBe(true);
    }
    const slow = await client.mx('slow.test');
    expect(slow).toEqual({ ok: true, records: [{ exchange: 'mx.slow.test', priority: 10 }] });
  });

  it('still gives up on a server that never answers, within about its budget', async () => {
    dns.set('silent.test', { drop: true });
    const client = new DnsClient({ servers: [dns.server], timeoutMs: 1_000 });
    expect(await client.mx('silent.test')).toEqual({ ok: false, failure: 'TIMEOUT' });
  });
});
