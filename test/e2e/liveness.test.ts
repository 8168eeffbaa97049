/**
 * Liveness that survives the network, with the built CLI's processes (docs/architecture.md
 * "Liveness beside leases"): a worker whose connections to PostgreSQL go through a forwarder that
 * drops them without a word (as a NAT gateway forgetting idle connections does) stops working its
 * chunks before another worker takes them over, and works again once the network is back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { expectedVerdict, numberedAddresses } from '../support/numbered-addresses.js';
import { call } from '../support/service-app.js';
import { startService, startWorker, type RunningService, type RunningWorker } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const HOST = '127.0.41.11';
const DOMAIN = 'slow.liveness.test';
const ADDRESSES = 1_000;
/** Per reply: a chunk of 50 lasts over a second, so the cut lands while one is in hand. */
const REPLY_MS = 100;
const postgres = STORE_KINDS.find((kind) => kind.name === 'PostgreSQL');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dns: DnsFixture;
let mx: SmtpFixture;
let engineArgs: string[];
const running: Array<RunningService | RunningWorker> = [];
const places: StoreFixture[] = [];
const proxies: TcpProxy[] = [];

beforeAll(async () => {
  const port = await freePort(HOST);
  const mailboxes = numberedAddresses('live', ADDRESSES, DOMAIN).filter((email) => expectedVerdict(email) === 'valid');
  mx = await startSmtpServer({ host: HOST, port, mailboxes, replyDelayMs: REPLY_MS });
  dns = await startDnsServer(mxZones(DOMAIN, { [`mx.${DOMAIN}`]: HOST }));
  engineArgs = [
    '--dns-server',
    dns.server,
    '--smtp-port',
    String(port),
    '--helo',
    'probe.test',
    '--mail-from',
    'probe@probe.test',
    '--retry-schedule',
    'none',
    '--log-level',
    'info',
  ];
});

afterEach(async () => {
  for (const each of running.splice(0).reverse()) await each.stop();
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const place of places.splice(0)) await place.close();
});

afterAll(async () => {
  await Promise.all([mx?.close(), dns?.close()]);
});

/** When (epoch ms, from its log line) a process first logged `message`. */
function loggedAt(stderr: string, message: string): number | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { time: number; msg: string };
    if (entry.msg.startsWith(message)) return entry.time;
  }
  return undefined;
}

describe.skipIf(!postgres)('a worker cut off from PostgreSQL without a word', () => {
  it('stops its chunks before another worker takes them over, and the job completes right', { timeout: 120_000 }, async () => {
    const place = await postgres!.create();
    places.push(place);
    const url = new URL(place.location.databaseUrl!);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    proxies.push(proxy);
    const throughProxy = new URL(url);
    throughProxy.hostname = proxy.host;
    throughProxy.port = String(proxy.port);

    const api = await startService({ dataDir: place.location.dataDir, databaseUrl: url.toString(), engineArgs: [...engineArgs, '--no-worker'] });
    running.push(api);
    const cutOff = await startWorker({ dataDir: place.location.dataDir, databaseUrl: throughProxy.toString() }, engineArgs);
    running.push(cutOff);
    const other = await startWorker(api, engineArgs);
    running.push(other);
    const token = await api.createUser('live@example.test', { credits: ADDRESSES, rateLimit: 1_000 });
    const emails = numberedAddresses('live', ADDRESSES, DOMAIN);
    const jobId = (await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails } })).body.jobId as string;
    // The cut comes while the worker behind the forwarder has a chunk in hand, the other one looking on.
    while (!cutOff.stderr().includes('verifying a chunk')) await sleep(20);
    proxy.dropSilently();
    const deadline = Date.now() + 30_000;
    while (loggedAt(other.stderr(), 'took over the leases of a runner that is gone') === undefined) {
      expect(Date.now(), 'the other worker takes the leases over').toBeLessThan(deadline);
      await sleep(100);
    }
    const stoppedAt = loggedAt(cutOff.stderr(), 'stopped a chunk: this process could not show the store in time that it is alive');
    const takenAt = loggedAt(other.stderr(), 'took over the leases of a runner that is gone')!;
    expect(
      stoppedAt,
      cutOff
        .stderr()
        .split('\n')
        .map((line) => line.slice(0, 200))
        .filter((line) => !line.includes('result cache'))
        .join('\n'),
    ).toBeDefined();
    expect(stoppedAt!).toBeLessThan(takenAt);
    console.info(`the cut-off worker stopped its chunks ${takenAt - stoppedAt!} ms before the other took them over`);

    proxy.heal();
    for (;;) {
      const progress = await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}/progress`, { token });
      if (progress.body.status === 'completed') break;
      await sleep(100);
    }
    const job = await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}?limit=5000`, { token });
    const results = job.body.results as Array<{ email: string; result: string }>;
    expect(results.map((result) => result.email)).toEqual(emails);
    expect(results.map((result) => result.result)).toEqual(emails.map(expectedVerdict));
    expect((await call(api.baseUrl, 'GET', '/v1/account', { token })).body.balance).toBe(0);
  });
});
