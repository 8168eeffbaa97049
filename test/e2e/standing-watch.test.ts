import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { runCli, startService, startWorker, type RunningService } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

/**
 * `serve` and `worker` watch their egress's standing: a warning at start with the fix, the
 * findings on the metrics listener, and a re-check every --standing-interval that sees a delisting.
 * The providers' mail hosts are the test SMTP server, which says back the address we come from.
 */
let dns: DnsFixture;
let smtp: SmtpFixture;
/** Mail hosts that refuse our egress: every RCPT (Postfix's DNSBL reply), and at the greeting. */
let blocking: SmtpFixture;
let greetingBlock: SmtpFixture;
let service: RunningService;

const SMTP_HOST = '127.0.33.50';
const EGRESS = '127.0.33.17';
const LISTING = '17.33.0.127.dnsbl.test';

const engineArgs = () => [
  ...['--dns-server', dns.server, '--smtp-port', String(smtp.port), '--source-address', EGRESS, '--dnsbl-zone', 'dnsbl.test'],
  ...['--helo', 'probe.standing.test', '--connect-timeout', '2000', '--standing-interval', '1s', '--metrics-port', '0'],
];

beforeAll(async () => {
  const port = await freePort([SMTP_HOST, '127.0.33.51', '127.0.33.52']);
  smtp = await startSmtpServer({ host: SMTP_HOST, port });
  blocking = await startSmtpServer({ host: '127.0.33.51', port, block: true });
  greetingBlock = await startSmtpServer({ host: '127.0.33.52', port, blockGreeting: true });
  dns = await startDnsServer(
    {
      ...mxZones('gmail.com', { 'gmail-smtp-in.l.google.com': SMTP_HOST }),
      ...mxZones('outlook.com', { 'outlook-com.olc.protection.outlook.com': SMTP_HOST }),
      ...mxZones('yahoo.com', { 'mta5.am0.yahoodns.net': SMTP_HOST }),
      'probe.standing.test': { records: [{ type: 'A', address: EGRESS }] },
      [LISTING]: { records: [{ type: 'A', address: '127.0.0.2' }] },
      ...mxZones('blocks-rcpt.test', { 'mx.blocks-rcpt.test': '127.0.33.51' }),
      ...mxZones('blocks-greeting.test', { 'mx.blocks-greeting.test': '127.0.33.52' }),
      // No PTR for the egress at all.
    },
    { host: '127.0.33.6' },
  );
  service = await startService({ engineArgs: engineArgs() });
});

afterAll(async () => {
  await Promise.all([service?.stop(), dns?.close(), smtp?.close(), blocking?.close(), greetingBlock?.close()]);
});

async function waitFor<T>(what: string, get: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** POST /v1/verify of one address as the token's owner: the result's body. */
async function verifyOne(at: RunningService, token: string, email: string): Promise<unknown> {
  const response = await fetch(`${at.baseUrl}/v1/verify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

const metricsOf = async (stderr: () => string) => {
  const url = await waitFor('the metrics line', () => /mailverify: metrics on (\S+)/.exec(stderr())?.[1]);
  return async () => (await fetch(url)).text();
};

describe('the standing watch of serve and worker', () => {
  it('warns at start, with the fix, about a listed egress and a missing PTR', async () => {
    const warned = await waitFor('the start-up warning', () => (service.stderr().includes('mailverify: warning: reverse dns') ? service.stderr() : undefined));
    expect(warned).toContain(
      `mailverify: warning: blocklists ${EGRESS}: ${EGRESS} (as gmail-smtp-in.l.google.com said back) is listed in dnsbl.test (127.0.0.2): request delisting at the removal page of dnsbl.test's operator`,
    );
    expect(warned).toMatch(
      new RegExp(`mailverify: warning: reverse dns ${EGRESS.replaceAll('.', '\\.')}: ${EGRESS.replaceAll('.', '\\.')} has no PTR record.*set a PTR for`),
    );
  });

  it('shows the findings per egress on the metrics listener, and sees a delisting at the next check', async () => {
    const scrape = await metricsOf(service.stderr);
    const listed = `mailverify_egress_listed{egress="${EGRESS}",zone="dnsbl.test"}`;
    await waitFor('the listing on the metrics', async () => ((await scrape()).includes(`${listed} 1`) ? true : undefined));
    const text = await scrape();
    expect(text).toContain(`mailverify_egress_standing_problem{egress="${EGRESS}",check="blocklists"} 1`);
    expect(text).toContain(`mailverify_egress_standing_problem{egress="${EGRESS}",check="reverse_dns"} 1`);
    // No PTR: nothing to compare the HELO name with, so that check tells nothing.
    expect(text).not.toContain(`check="helo_ptr"`);

    dns.set(LISTING, { rcode: 'NXDOMAIN' });
    try {
      await waitFor('the delisting on the metrics', async () => ((await scrape()).includes(`${listed} 0`) ? true : undefined));
      expect(await scrape()).toContain(`mailverify_egress_standing_problem{egress="${EGRESS}",check="blocklists"} 0`);
    } finally {
      dns.set(LISTING, { records: [{ type: 'A', address: '127.0.0.2' }] });
    }
  });

  it('warns at the start of a worker too', async () => {
    const worker = await startWorker(service, engineArgs());
    try {
      await waitFor("the worker's warning", () => (worker.stderr().includes(`mailverify: warning: blocklists ${EGRESS}:`) ? true : undefined));
    } finally {
      await worker.stop();
    }
  });

  it('is off with --standing-interval 0', async () => {
    const quiet = await startWorker(service, [...engineArgs(), '--standing-interval', '0']);
    try {
      const scrape = await metricsOf(quiet.stderr);
      // The network check at start has had its time; the standing check was never made.
      await sleep(1_500);
      expect(await scrape()).not.toContain('mailverify_egress_listed');
      expect(quiet.stderr()).not.toContain('mailverify: warning: blocklists');
    } finally {
      await quiet.stop();
    }
  });

  it('refuses an --standing-interval that is no duration (exit 2), and reads MAILVERIFY_STANDING_INTERVAL', async () => {
    const flag = await runCli(['worker', '--data-dir', service.dataDir, '--standing-interval', 'soon']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe('mailverify: --standing-interval: "soon" is no duration; use a number with s, m, h or d (e.g. 1h), or 0 to turn the check off\n');
    const env = await runCli(['worker', '--data-dir', service.dataDir], { env: { MAILVERIFY_STANDING_INTERVAL: '30 minutes' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('--standing-interval: "30 minutes" is no duration');
  });

  it('counts the refusals of each egress by reason code, at RCPT and before it', async () => {
    const scrape = await metricsOf(service.stderr);
    const token = await service.createUser('refused@example.org', { credits: 10 });
    for (const email of ['ann@blocks-rcpt.test', 'bob@blocks-greeting.test']) {
      expect(await verifyOne(service, token, email)).toMatchObject({ email, result: 'unknown', reasonCode: 'ip_blocked' });
    }
    const text = await scrape();
    expect(text).toMatch(
      new RegExp(`^mailverify_smtp_rcpt_replies_total\\{[^}]*reason_code="ip_blocked",egress="${EGRESS.replaceAll('.', '\\.')}"\\} [1-9]`, 'm'),
    );
    expect(text).toMatch(
      new RegExp(`^mailverify_smtp_session_refusals_total\\{[^}]*reason_code="ip_blocked",egress="${EGRESS.replaceAll('.', '\\.')}"\\} [1-9]`, 'm'),
    );
    expect(blocking.clientAddresses()).toContain(EGRESS);
  });
});

describe('benches on the metrics listener', () => {
  it('shows an egress a provider refused as benched there', async () => {
    const pool = await startService({
      engineArgs: [...engineArgs(), '--source-address', '127.0.33.18', '--standing-interval', '0'],
    });
    try {
      const scrape = await metricsOf(pool.stderr);
      const token = await pool.createUser('benched@example.org', { credits: 10 });
      await verifyOne(pool, token, 'ann@blocks-rcpt.test');
      // The first egress of the pool was refused for its reputation, and is benched at that host (no known provider).
      expect(await scrape()).toContain(`mailverify_egress_benched{egress="${EGRESS}",provider="other"} 1`);
    } finally {
      await pool.stop();
    }
  });
});
