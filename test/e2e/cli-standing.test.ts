import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { runCli } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

/**
 * `doctor` on our own standing, per egress: two source addresses on loopback (not public, so the
 * address is learnt from what the mail host says back to EHLO), a DNSBL zone that lists one of
 * them, and reverse DNS that resolves back for the other only.
 */
let dns: DnsFixture;
let smtp: SmtpFixture;

const SMTP_HOST = '127.0.33.40';
const LISTED = '127.0.33.7';
const CLEAN = '127.0.33.8';
const HELO = 'probe.standing.test';
/** The real Postfix of test/support/postfix/. */
const POSTFIX = '127.0.0.25';
/** Nothing listens here. */
const NOBODY = '127.0.33.42';
const NO_SERVICE = { MAILVERIFY_TOKEN: '', MAILVERIFY_BASE_URL: '', MAILVERIFY_CONFIG_DIR: '/nonexistent/mailverify-standing' };

beforeAll(async () => {
  smtp = await startSmtpServer({ host: SMTP_HOST, port: await freePort([SMTP_HOST]) });
  dns = await startDnsServer(
    {
      ...mxZones('standing.test', { 'mx.standing.test': SMTP_HOST }),
      [HELO]: { records: [{ type: 'A', address: CLEAN }] },
      // The listed egress: in the test zone, and a PTR left from a former owner that points elsewhere.
      '7.33.0.127.dnsbl.test': { records: [{ type: 'A', address: '127.0.0.2' }] },
      '7.33.0.127.in-addr.arpa': { records: [{ type: 'PTR', domain: 'old-owner.standing.test' }] },
      'old-owner.standing.test': { records: [{ type: 'A', address: '127.0.33.99' }] },
      // The clean one: not listed, its PTR our HELO name, which resolves back to it.
      '8.33.0.127.in-addr.arpa': { records: [{ type: 'PTR', domain: HELO }] },
    },
    { host: '127.0.33.5' },
  );
});

afterAll(async () => {
  await Promise.all([dns?.close(), smtp?.close()]);
});

/** doctor against the test world only: no service, the test mail host, the test DNSBL zone. */
const doctor = (sourceAddresses: string[], json = false) =>
  runCli(
    [
      ...(json ? ['--json'] : []),
      'doctor',
      ...sourceAddresses.flatMap((address) => ['--source-address', address]),
      ...['--dns-server', dns.server, '--smtp-port', String(smtp.port), '--allow-private-networks', '--mx-host', SMTP_HOST],
      ...['--helo', HELO, '--mail-from', `probe@standing.test`, '--dnsbl-zone', 'dnsbl.test', '--connect-timeout', '2000', '--dns-timeout', '2000'],
    ],
    { env: NO_SERVICE },
  );

/** status and detail of each line, by check name. */
function linesOf(stdout: string): Map<string, { status: string; detail: string }> {
  return new Map(
    stdout
      .trim()
      .split('\n')
      .map((line) => {
        const [status = '', check = '', ...detail] = line.split(/\s{2,}/);
        return [check.trim(), { status: status.trim(), detail: detail.join('  ') }];
      }),
  );
}

describe('doctor: our own standing per egress', () => {
  it('names a listed egress and a PTR that does not resolve back, each with its fix, and exits 1', async () => {
    smtp.reset();
    const { code, stdout, stderr } = await doctor([LISTED]);
    expect(code, stderr).toBe(1);
    const lines = linesOf(stdout);
    expect(lines.get(`blocklists ${LISTED}`)).toEqual({
      status: 'problem',
      detail: expect.stringMatching(
        new RegExp(
          `^127\\.0\\.33\\.7 \\(as ${SMTP_HOST.replaceAll('.', '\\.')} said back\\) is listed in dnsbl\\.test \\(127\\.0\\.0\\.2\\): request delisting at the removal page of dnsbl\\.test's operator`,
        ),
      ),
    });
    expect(lines.get(`reverse dns ${LISTED}`)).toEqual({
      status: 'problem',
      detail: expect.stringMatching(
        /^127\.0\.33\.7's PTR does not resolve back to it \(old-owner\.standing\.test resolves to 127\.0\.33\.99\); ask your provider \(whoever owns 127\.0\.33\.7\) to set a PTR for 127\.0\.33\.7 to a name that resolves back to it/,
      ),
    });
    expect(lines.get(`helo and ptr ${LISTED}`)).toEqual({
      status: 'problem',
      detail: expect.stringContaining(`the HELO name ${HELO} is not 127.0.33.7's PTR name (old-owner.standing.test)`),
    });
    // Every other line is fine: the problems are the egress's standing alone.
    for (const [check, line] of lines) if (!check.endsWith(LISTED)) expect(line.status, check).not.toBe('problem');
    expect(stderr).toBe(`mailverify: doctor found 3 problems: blocklists ${LISTED}, reverse dns ${LISTED}, helo and ptr ${LISTED}\n`);
    // The address was learnt from a connection made from that egress.
    expect(smtp.clientAddresses()).toContain(LISTED);
  });

  it('passes a clean egress on both checks, and exits 0', async () => {
    const { code, stdout, stderr } = await doctor([CLEAN]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = linesOf(stdout);
    expect(lines.get(`blocklists ${CLEAN}`)).toEqual({ status: 'ok', detail: `127.0.33.8 (as ${SMTP_HOST} said back) is on none of dnsbl.test` });
    expect(lines.get(`reverse dns ${CLEAN}`)).toEqual({ status: 'ok', detail: `127.0.33.8 → ${HELO} → 127.0.33.8` });
    expect(lines.get(`helo and ptr ${CLEAN}`)).toEqual({ status: 'ok', detail: `the HELO name ${HELO} is 127.0.33.8's PTR name` });
  });

  it('checks each egress of the pool on its own lines (--json)', async () => {
    const { code, stdout } = await doctor([CLEAN, LISTED], true);
    expect(code).toBe(1);
    const checks = (JSON.parse(stdout) as { checks: { check: string; status: string }[] }).checks;
    const standing = checks.filter((check) => / 127\.0\.33\.\d+$/.test(check.check));
    expect(standing.map((check) => `${check.status} ${check.check}`)).toEqual([
      `ok blocklists ${CLEAN}`,
      `ok reverse dns ${CLEAN}`,
      `ok helo and ptr ${CLEAN}`,
      `problem blocklists ${LISTED}`,
      `problem reverse dns ${LISTED}`,
      `problem helo and ptr ${LISTED}`,
    ]);
  });

  it('says the address is not known when no mail host says it back', async () => {
    // The real Postfix fixture answers EHLO without naming the peer, nothing listens on the other; the source address is not public.
    const { stdout } = await runCli(
      [
        '--json',
        'doctor',
        '--source-address',
        CLEAN,
        '--dns-server',
        dns.server,
        '--smtp-port',
        '25',
        '--allow-private-networks',
        '--mx-host',
        POSTFIX,
        '--mx-host',
        NOBODY,
        '--helo',
        HELO,
        '--dnsbl-zone',
        'dnsbl.test',
      ],
      { env: NO_SERVICE },
    );
    const checks = (JSON.parse(stdout) as { checks: { check: string; status: string; detail: string }[] }).checks;
    expect(checks.find((check) => check.check.endsWith(CLEAN))).toEqual({
      check: `standing ${CLEAN}`,
      status: 'skipped',
      detail: `the address mail hosts see from ${CLEAN} is not known: it is no public address of this host and no mail host said it back (asked ${POSTFIX}; ${NOBODY}: cannot connect to ${NOBODY}:25: ECONNREFUSED); blocklists and reverse DNS not checked`,
    });
    expect(checks.filter((check) => check.check.endsWith(CLEAN))).toHaveLength(1);
  });
});
