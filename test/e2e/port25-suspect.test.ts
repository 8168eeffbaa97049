/**
 * One customer cannot blind a node for every customer (docs/architecture.md "Egress"): a domain whose
 * three MX addresses drop SYN on port 25 (iptables rules on 127.0.66.1-3 that `npm run test:setup`
 * adds, test/support/dropped-smtp.sh) makes the node only suspect its port 25; the confirmation
 * against a check host no customer picks gets through, so another customer's address is still
 * `valid`, `/readyz` 200, and the unauthenticated `/healthz` names no host. The real service (the
 * built CLI, `npm run build` first) on SMTP port 25, with a short connect timeout.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { SETUP_COMMAND } from '../support/machine.js';
import { call } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

const DROPPED = ['127.0.66.1', '127.0.66.2', '127.0.66.3'];
/** Tenant B's mail host, and the check host the operator names: both answer on port 25. */
const WORKING_HOST = '127.0.66.10';
const CHECK_HOST = '127.0.66.20';
const CONNECT_TIMEOUT_MS = 400;

let dns: DnsFixture;
let working: SmtpFixture;
let check: SmtpFixture;
let service: RunningService;

/** Whether a SYN to `address`:25 goes unanswered (dropped) rather than answered or refused. */
function synDropped(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port: 25 });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(true);
    }, 300);
    socket.once('connect', () => (clearTimeout(timer), socket.destroy(), resolve(false)));
    socket.once('error', () => (clearTimeout(timer), resolve(false)));
  });
}

beforeAll(async () => {
  // Loud, not skipped: without the rules this test would prove nothing.
  const missing = (await Promise.all(DROPPED.map(async (address) => ((await synDropped(address)) ? [] : [address])))).flat();
  if (missing.length > 0)
    throw new Error(
      `port 25 of ${missing.join(', ')} is not dropped: the iptables rules of test/support/dropped-smtp.sh are missing; run \`${SETUP_COMMAND}\``,
    );
  working = await startSmtpServer({ host: WORKING_HOST, port: 25, mailboxes: ['bea@b.port25.test'] });
  check = await startSmtpServer({ host: CHECK_HOST, port: 25 });
  dns = await startDnsServer({
    ...mxZones('a.port25.test', Object.fromEntries(DROPPED.map((address, index) => [`mx${index + 1}.a.port25.test`, address]))),
    ...mxZones('b.port25.test', { 'mx.b.port25.test': WORKING_HOST }),
  });
  service = await startService({
    engineArgs: [
      '--dns-server',
      dns.server,
      '--smtp-port',
      '25',
      '--connect-timeout',
      String(CONNECT_TIMEOUT_MS),
      '--command-timeout',
      '2000',
      '--helo',
      'probe.test',
      '--mail-from',
      'probe@probe.test',
      '--retry-schedule',
      'none',
      '--port25-check-host',
      CHECK_HOST,
    ],
  });
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([working?.close(), check?.close(), dns?.close()]);
});

describe('mail hosts that drop SYN, chosen by one customer', () => {
  it("give that customer's addresses their own timeout and leave every other customer, readiness and /healthz as they were", async () => {
    const tenantA = await service.createUser('a@tenants.test', { credits: 10 });
    const tenantB = await service.createUser('b@tenants.test', { credits: 10 });

    const verify = (token: string, email: string) => call(service.baseUrl, 'POST', '/v1/verify', { token, json: { email } });
    const aReplies = await Promise.all(['ann', 'abe', 'amy'].map((local) => verify(tenantA, `${local}@a.port25.test`)));
    for (const reply of aReplies) {
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toMatchObject({ result: 'unknown', reasonCode: 'timeout' });
    }
    // The suspicion was confirmed against the check host, which answered.
    await vi.waitFor(() => expect(check.sessionCount()).toBeGreaterThan(0), { timeout: 5_000 });

    const bReply = await verify(tenantB, 'bea@b.port25.test');
    expect(bReply.status, JSON.stringify(bReply.body)).toBe(200);
    expect(bReply.body).toMatchObject({ result: 'valid', reasonCode: 'accepted' });
    expect(working.rcptCount('bea@b.port25.test')).toBe(1);

    expect((await call(service.baseUrl, 'GET', '/readyz')).status).toBe(200);
    const health = await call(service.baseUrl, 'GET', '/healthz');
    expect(health.body).toEqual({ status: 'ok', details: { canVerify: true } });
    const said = JSON.stringify(health.body);
    for (const name of [...DROPPED, 'a.port25.test', CHECK_HOST]) expect(said).not.toContain(name);

    // The operator's log says which hosts made the node suspect its port, and that it was confirmed open.
    expect(service.stderr()).toMatch(/port 25 suspected blocked \(connections to 3 mail hosts \(127\.0\.66\.\d, 127\.0\.66\.\d, 127\.0\.66\.\d\) timed out/);
  });
});
