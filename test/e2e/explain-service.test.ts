/**
 * `"explain": true` on `POST /v1/verify`, on the real service (the built CLI, `npm run build` first)
 * going out through a SOCKS5 proxy with credentials to an SMTP fixture: the caller gets how its own
 * verdict was reached (the host, the egress, every SMTP line), never the proxy's password; a verdict
 * reused from another account's verification says only that it was reused; bulk takes no `explain`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { call } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { startSocksServer, type SocksFixture } from '../support/socks-server.js';

const MX = '127.0.67.10';
const PROXY = '127.0.67.20';
const DOMAIN = 'explain.test';
const PASSWORD = 'proxy-secret-9f2c';

let dns: DnsFixture;
let smtp: SmtpFixture;
let proxy: SocksFixture;
let service: RunningService;

beforeAll(async () => {
  smtp = await startSmtpServer({ host: MX, port: await freePort([MX]), mailboxes: [`ann@${DOMAIN}`] });
  dns = await startDnsServer(mxZones(DOMAIN, { [`mx.${DOMAIN}`]: MX }));
  proxy = await startSocksServer({ host: PROXY, credentials: { username: 'prober', password: PASSWORD } });
  service = await startService({
    engineArgs: [
      '--dns-server',
      dns.server,
      '--smtp-port',
      String(smtp.port),
      '--helo',
      'probe.test',
      '--mail-from',
      'probe@probe.test',
      '--retry-schedule',
      'none',
    ],
    // A proxy password only ever comes from the environment.
    env: { MAILVERIFY_PROXY: proxy.url },
  });
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([smtp?.close(), dns?.close(), proxy?.close()]);
});

describe('POST /v1/verify with "explain": true', () => {
  it("answers with the caller's own dialogue, the egress named without its credentials; a reused verdict only says so", async () => {
    const tenantA = await service.createUser('a@tenants.test', { credits: 10 });
    const tenantB = await service.createUser('b@tenants.test', { credits: 10 });
    const verify = (token: string, json: object) => call(service.baseUrl, 'POST', '/v1/verify', { token, json });

    const explained = await verify(tenantA, { email: `ann@${DOMAIN}`, explain: true });
    expect(explained.status, JSON.stringify(explained.body)).toBe(200);
    expect(explained.body).toMatchObject({ result: 'valid', reasonCode: 'accepted' });
    const { details } = explained.body;
    expect(details.mxHosts).toEqual([{ host: `mx.${DOMAIN}`, address: MX }]);
    expect(details.connections).toEqual([{ ms: expect.any(Number), host: `mx.${DOMAIN}`, address: MX, egress: 'proxy 1', outcome: 'connected' }]);
    // The service's proxy is named by its label only: neither its host nor its address.
    expect(JSON.stringify(explained.body)).not.toContain(PROXY);
    const lines = details.transcript as { ms: number; dir: string; line: string }[];
    const rcpt = lines.findIndex((line) => line.dir === 'sent' && line.line === `RCPT TO:<ann@${DOMAIN}>`);
    expect(rcpt, JSON.stringify(lines)).toBeGreaterThan(0);
    expect(lines[rcpt + 1]).toMatchObject({ dir: 'received', line: expect.stringMatching(/^250 /) });
    expect(lines.every((line) => Number.isInteger(line.ms) && (line.dir === 'sent' || line.dir === 'received'))).toBe(true);
    expect(JSON.stringify(explained.body)).not.toContain(PASSWORD);
    expect(proxy.relayed).toContain(`${MX}:${smtp.port}`);

    // Not asked for, not given.
    const plain = await verify(tenantA, { email: `bob@${DOMAIN}` });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('details');

    // Tenant B's verification of the same address reuses A's verdict: it says so, and shows nothing of A's dialogue.
    const rcptsBefore = smtp.rcptCount();
    const reused = await verify(tenantB, { email: `ann@${DOMAIN}`, explain: true });
    expect(reused.status).toBe(200);
    expect(reused.body).toMatchObject({ result: 'valid', verifiedAt: expect.stringMatching(/T00:00:00\.000Z$/) });
    expect(reused.body.details).toEqual({
      mxHosts: [],
      connections: [],
      transcript: [],
      notes: [`reused: a verdict found ${reused.body.verifiedAt} (the result cache); no mail host was asked now; ask with "fresh": true to see the dialogue`],
    });
    expect(smtp.rcptCount()).toBe(rcptsBefore);
  });

  it("says nothing of other accounts' activity at the domain: its own catch-all probe, no finding reused", async () => {
    const tenantC = await service.createUser('c-catch-all@tenants.test', { credits: 10 });
    const tenantD = await service.createUser('d-catch-all@tenants.test', { credits: 10 });
    const verify = (token: string, json: object) => call(service.baseUrl, 'POST', '/v1/verify', { token, json });
    // Tenant C asks about the domain; tenant D then asks about another address of it, explained.
    expect((await verify(tenantC, { email: `carl@${DOMAIN}`, fresh: true })).status).toBe(200);
    const explained = await verify(tenantD, { email: `dora@${DOMAIN}`, fresh: true, explain: true });
    expect(explained.status, JSON.stringify(explained.body)).toBe(200);
    const { details } = explained.body;
    expect(details.notes).toEqual([]);
    const rcpts = (details.transcript as { dir: string; line: string }[]).filter((line) => line.dir === 'sent' && line.line.startsWith('RCPT TO:'));
    // The random address of its own catch-all probe, then the address asked about.
    expect(rcpts.map((line) => line.line)).toEqual([expect.not.stringContaining('dora@'), `RCPT TO:<dora@${DOMAIN}>`]);
  });

  it('is refused on bulk work: single verifications only', async () => {
    const token = await service.createUser('c@tenants.test', { credits: 10 });
    const reply = await call(service.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: [`ann@${DOMAIN}`], explain: true } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'invalid_request' });
  });
});
