import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { runCli, startService, type RunningService } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { startSocksServer, type SocksFixture } from '../support/socks-server.js';

/** The built CLI on a network whose resolver denies every name (a captive portal, a sandbox). */
let lying: DnsFixture;
let truthful: DnsFixture;
/** A healthy world for `doctor`: the providers' MX hosts answer SMTP, our names resolve, a proxy and a service run. */
let healthy: DnsFixture;
let smtp: SmtpFixture;
let proxy: SocksFixture;
let service: RunningService;
let token: string;

const SMTP_HOST = '127.0.13.40';
const PROXY_PASSWORD = 'doctor-secret';

const local = (dns: DnsFixture) => [
  '--local',
  '--dns-server',
  dns.server,
  '--allow-private-networks',
  '--no-web-check',
  '--dnsbl-zone',
  'dnsbl.test',
  '--dns-timeout',
  '1000',
];

beforeAll(async () => {
  lying = await startDnsServer({}, { host: '127.0.13.3', truthful: false });
  truthful = await startDnsServer({}, { host: '127.0.13.4' });
  smtp = await startSmtpServer({ host: SMTP_HOST, port: await freePort([SMTP_HOST]), mailboxes: ['alice@doctor.test'] });
  healthy = await startDnsServer(
    {
      ...mxZones('gmail.com', { 'gmail-smtp-in.l.google.com': SMTP_HOST }),
      ...mxZones('outlook.com', { 'outlook-com.olc.protection.outlook.com': SMTP_HOST }),
      ...mxZones('yahoo.com', { 'mta5.am0.yahoodns.net': SMTP_HOST }),
      ...mxZones('doctor.test', { 'mx.doctor.test': SMTP_HOST }),
      // Our HELO name is the PTR name of the address the mail host sees (the proxy connects from 127.0.0.1) and resolves back to it.
      'probe.doctor.test': {
        records: [
          { type: 'A', address: '127.0.13.41' },
          { type: 'A', address: '127.0.0.1' },
        ],
      },
      '1.0.0.127.in-addr.arpa': { records: [{ type: 'PTR', domain: 'probe.doctor.test' }] },
    },
    { host: '127.0.13.5' },
  );
  proxy = await startSocksServer({ host: '127.0.13.6', credentials: { username: 'doctor', password: PROXY_PASSWORD } });
  // Its own resolver tells the truth: `serve` asks at start, and a service that cannot verify is a problem doctor names.
  service = await startService({ engineArgs: ['--dns-server', healthy.server] });
  token = await service.createUser('doctor@example.org', { credits: 7 });
});

afterAll(async () => {
  await Promise.all([lying?.close(), truthful?.close(), healthy?.close(), smtp?.close(), proxy?.close(), service?.stop()]);
});

const healthyArgs = () => [
  '--dns-server',
  healthy.server,
  '--smtp-port',
  String(smtp.port),
  '--allow-private-networks',
  '--helo',
  'probe.doctor.test',
  '--mail-from',
  'probe@doctor.test',
  '--connect-timeout',
  '2000',
];
const healthyEnv = () => ({
  MAILVERIFY_BASE_URL: service.baseUrl,
  MAILVERIFY_TOKEN: token,
  MAILVERIFY_PROXY: proxy.url,
  MAILVERIFY_CONFIG_DIR: `${service.dataDir}/no-config`,
});

describe('verify --local behind a resolver that denies every name', () => {
  it('finds addresses at known providers and at unknown domains unknown, never invalid, and says why', async () => {
    const addresses = ['jane@gmail.com', 'joe@yahoo.com', 'someone@example.org', 'x@no-such-domain.test'];
    const { code, stdout, stderr } = await runCli(['verify', ...local(lying), '--json', '--fail-on', 'invalid', ...addresses]);
    // Not a clean run: exit 9, in one line that says the verifier, not the addresses, failed.
    expect(code, stderr).toBe(9);
    // Under --json the error is one JSON object on stderr, with its own code.
    expect(JSON.parse(stderr)).toMatchObject({
      error: {
        code: 'cannot_verify',
        exitCode: 9,
        message: '4 results are unknown because the verifier cannot verify (resolver_untruthful), not because of the addresses',
      },
    });
    const results = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; result: string; reason: string });
    expect(results.map((result) => result.email)).toEqual(addresses);
    for (const result of results) {
      expect(result.result, result.email).toBe('unknown');
      expect(result.reason).toMatch(/resolver is not answering truthfully.*--dns-server/);
    }
  });
});

describe('role addresses behind a resolver that denies every name', () => {
  // The role list alone would say `risky` (exit 0): a gate on `invalid,unknown` would pass on a verifier that saw nothing.
  it('finds info@, admin@ and postmaster@ unknown with the resolver named, and exits 9', async () => {
    const addresses = ['info@gmail.com', 'admin@yahoo.com', 'postmaster@example.org'];
    const { code, stdout, stderr } = await runCli(['verify', ...local(lying), '--json', '--fail-on', 'invalid,unknown', ...addresses]);
    expect(code, stderr).toBe(9);
    const results = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; result: string; reasonCode: string });
    expect(results).toEqual(addresses.map((email) => expect.objectContaining({ email, result: 'unknown', reasonCode: 'resolver_untruthful' })));
  });
});

describe('no silent wipes behind a resolver that denies every name', () => {
  it("leaves yesterday's cleaned list as it was and exits 9; --force replaces it, still exit 9", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailverify-wipe-'));
    const keep = join(dir, 'keep.csv');
    await writeFile(keep, 'email,result\nann@example.org,valid\n');
    const env = { MAILVERIFY_LOCAL_DATA_DIR: join(dir, 'data'), MAILVERIFY_CONFIG_DIR: join(dir, 'config') };
    const stdin = 'ann@example.org\nbob@example.org\n';
    const kept = await runCli(['bulk', 'submit', '-', ...local(lying), '--only', 'valid', '--output', keep], { env, stdin });
    expect(kept.code, kept.stderr).toBe(9);
    expect(kept.stderr).toMatch(/2 results are unknown because the verifier cannot verify \(resolver_untruthful\).*keep\.csv is left as it was/);
    expect(await readFile(keep, 'utf8')).toBe('email,result\nann@example.org,valid\n');
    const forced = await runCli(['bulk', 'submit', '-', ...local(lying), '--only', 'valid', '--output', keep, '--force'], { env, stdin });
    expect(forced.code, forced.stderr).toBe(9);
    expect(await readFile(keep, 'utf8')).not.toContain('ann@example.org,valid');
    await rm(dir, { recursive: true, force: true });
  });
});

describe('a service behind a resolver that denies every name', () => {
  it('charges nothing for what it could not verify, says so (exit 9, the old file kept) and is not ready', { timeout: 60_000 }, async () => {
    const broken = await startService({ engineArgs: ['--dns-server', lying.server, '--dns-timeout', '1000'] });
    const dir = await mkdtemp(join(tmpdir(), 'mailverify-broken-'));
    try {
      const owner = await broken.createUser('broke@example.org', { credits: 10, rateLimit: 1_000 });
      // TMPDIR: the copy of the piped list, kept for the service job's later merge-back, goes with dir.
      const env = { MAILVERIFY_BASE_URL: broken.baseUrl, MAILVERIFY_TOKEN: owner, MAILVERIFY_CONFIG_DIR: join(dir, 'config'), TMPDIR: dir };
      const keep = join(dir, 'keep.csv');
      await writeFile(keep, 'email,result\nann@example.org,valid\n');
      const run = await runCli(['bulk', 'submit', '-', '--wait', '--only', 'valid', '--output', keep], {
        env,
        stdin: 'jane@gmail.com\njoe@example.org\nann@example.org\n',
      });
      expect(run.code, run.stderr).toBe(9);
      expect(run.stderr).toMatch(/3 results are unknown because the verifier cannot verify \(resolver_untruthful\).*keep\.csv is left as it was/);
      expect(await readFile(keep, 'utf8')).toBe('email,result\nann@example.org,valid\n');
      // Charged 3 at submission, given back as each result was written: one ledger row per batch.
      const account = await runCli(['whoami', '--json'], { env });
      expect(JSON.parse(account.stdout)).toMatchObject({ balance: 10 });
      const single = await runCli(['verify', '--json', 'someone@example.org'], { env });
      expect(single.code).toBe(9);
      // The API user is told what happened and that it is not their address's fault; the fix is the operator's.
      const told = JSON.parse(single.stdout) as { reason: string; reasonCode: string };
      expect(told).toMatchObject({ result: 'unknown', reasonCode: 'resolver_untruthful' });
      expect(told.reason).toMatch(/verification service's DNS resolver is not answering truthfully.*nothing about the address.*costs no token/);
      expect(told.reason).not.toContain('--dns-server');
      // The operator heard of it at start, once, as the documented warning line (not a JSON log line), with the fix.
      const warned = broken
        .stderr()
        .split('\n')
        .filter((line) => line.includes('resolver is not answering truthfully'));
      expect(warned).toEqual([
        expect.stringMatching(
          /^mailverify: warning: the resolver is not answering truthfully.*--dns-server <ip>\. Until it is fixed every address comes back unknown/,
        ),
      ]);
      expect(JSON.parse((await runCli(['whoami', '--json'], { env })).stdout)).toMatchObject({ balance: 10 });
      const ready = await fetch(`${broken.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ code: 'cannot_verify' });
      // doctor on a healthy machine, against that service: the service is the problem; why is its operator's to read.
      const doctor = await runCli(['doctor', ...healthyArgs()], { env: { ...env, MAILVERIFY_PROXY: proxy.url } });
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toMatch(
        /^problem\s+service\s+.* answers but cannot verify now \(its outbound SMTP or its resolver fails\); its operator must fix that/m,
      );
    } finally {
      await broken.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('typo suggestions in the output', () => {
  it('adds "did you mean" to the human line and `suggestion` to the JSON line', async () => {
    const human = await runCli(['verify', ...local(truthful), 'ann@gmial.com', 'bob@no-such-domain.test']);
    expect(human.code, human.stderr).toBe(0);
    const [typo, other] = human.stdout.trim().split('\n');
    expect(typo).toMatch(/^invalid\s+ann@gmial\.com\s+the domain does not exist \(NXDOMAIN\)\s+did you mean ann@gmail\.com\?$/);
    expect(other).not.toContain('did you mean');

    const json = await runCli(['verify', ...local(truthful), '--json', 'ann@gmial.com']);
    expect(JSON.parse(json.stdout)).toMatchObject({ email: 'ann@gmial.com', result: 'invalid', suggestion: 'ann@gmail.com' });
  });
});

describe('mailverify doctor', () => {
  it('exits 1 naming DNS behind a resolver that denies every name', async () => {
    const { code, stdout, stderr } = await runCli(['doctor', '--dns-server', lying.server, '--dns-timeout', '1000', '--connect-timeout', '1000'], {
      env: { MAILVERIFY_TOKEN: '', MAILVERIFY_BASE_URL: '', MAILVERIFY_CONFIG_DIR: `${service.dataDir}/no-config` },
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(/^problem\s+dns\s+127\.0\.13\.3:\d+: the resolver is not answering truthfully.*--dns-server/m);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^mailverify: doctor found \d+ problems?: dns\b/);
  });

  it('says every line is ok against a healthy world, and exits 0', async () => {
    proxy.relayed.length = 0;
    const { code, stdout, stderr } = await runCli(['doctor', ...healthyArgs()], { env: healthyEnv() });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    const egress = `SOCKS5 proxy 127.0.13.6:${new URL(proxy.url).port}`;
    const standing = ['blocklists', 'reverse dns', 'helo and ptr'].map((check) => `${check} ${egress}`);
    expect(lines.map((line) => line.split(/\s{2,}/)[1]?.trim() ?? line)).toEqual([
      'dns',
      'port ' + smtp.port,
      'helo',
      'mail from',
      'proxy',
      'retry schedule',
      ...standing,
      'service',
      'token',
      'clock',
    ]);
    for (const line of lines) expect(line).toMatch(/^ok\s/);
    expect(stdout).toContain('signed in as doctor@example.org, balance 7');
    expect(stdout).toContain('asked again 1m, 6m, 16m, 31m, 61m after the first (--retry-schedule)');
    expect(stdout).toMatch(/SOCKS5 proxy 127\.0\.13\.6:\d+ \(with username and password\) relays to/);
    expect(stdout).not.toContain(PROXY_PASSWORD);
    expect(stdout).not.toContain(token);
    // Port 25 was tried through the proxy, as verification would go.
    expect(proxy.relayed.length).toBeGreaterThanOrEqual(2);
  });

  it('prints {ok, checks: [{check, status, detail}]} with --json', async () => {
    const { code, stdout } = await runCli(['--json', 'doctor', ...healthyArgs()], { env: healthyEnv() });
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { ok: boolean; checks: { check: string; status: string; detail: string }[] };
    expect(Object.keys(report).sort()).toEqual(['checks', 'ok']);
    expect(report.ok).toBe(true);
    expect(report.checks).toHaveLength(12);
    for (const check of report.checks) {
      expect(Object.keys(check).sort()).toEqual(['check', 'detail', 'status']);
      expect(check.status).toBe('ok');
      expect(check.detail).not.toBe('');
    }
  });

  it('finds a HELO name that is not fully qualified, and a proxy that refuses our password', async () => {
    const env = { ...healthyEnv(), MAILVERIFY_PROXY: proxy.url.replace(PROXY_PASSWORD, 'wrong') };
    const { code, stdout } = await runCli(['--json', 'doctor', ...healthyArgs(), '--helo', 'localhost'], { env });
    expect(code).toBe(1);
    const checks = Object.fromEntries(
      (JSON.parse(stdout) as { checks: { check: string; status: string; detail: string }[] }).checks.map((check) => [check.check, check]),
    );
    expect(checks.helo).toMatchObject({ status: 'problem', detail: expect.stringContaining('not a fully-qualified domain name') });
    expect(checks.proxy).toMatchObject({ status: 'problem', detail: expect.stringMatching(/SOCKS5 proxy 127\.0\.13\.6:\d+ .*authentication/i) });
    expect(stdout).not.toContain('wrong');
  });
});

describe('--proxy on the command line', () => {
  it('is refused with a password in it (exit 2), and taken from MAILVERIFY_PROXY with one', async () => {
    const refused = await runCli(['verify', '--local', '--proxy', proxy.url, 'alice@doctor.test']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--proxy must not carry a password \(set MAILVERIFY_PROXY=/);
    expect(refused.stderr).not.toContain(PROXY_PASSWORD);
    const malformed = await runCli(['verify', '--local', '--proxy', 'socks5://127.0.13.6:1080/path', 'alice@doctor.test']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/^mailverify: engine option proxy: the proxy URL must not have a path\n$/);

    proxy.relayed.length = 0;
    const local = ['verify', '--local', '--json', ...healthyArgs(), '--no-web-check', '--dnsbl-zone', 'dnsbl.test', 'alice@doctor.test', 'nobody@doctor.test'];
    const viaEnv = await runCli(local, { env: { MAILVERIFY_PROXY: proxy.url } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(
      viaEnv.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).result),
    ).toEqual(['valid', 'invalid']);
    expect(proxy.relayed.length).toBeGreaterThan(0);
  });
});
