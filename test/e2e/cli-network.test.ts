import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { runCli } from '../support/service.js';

/** The built CLI on a network whose resolver denies every name (a captive portal, a sandbox). */
let lying: DnsFixture;
let truthful: DnsFixture;

const local = (dns: DnsFixture) => ['--local', '--dns-server', dns.server, '--allow-private-networks', '--no-web-check', '--dnsbl-zone', 'dnsbl.test', '--dns-timeout', '1000'];

beforeAll(async () => {
  lying = await startDnsServer({}, { host: '127.0.13.3', truthful: false });
  truthful = await startDnsServer({}, { host: '127.0.13.4' });
});

afterAll(async () => {
  await lying?.close();
  await truthful?.close();
});

describe('verify --local behind a resolver that denies every name', () => {
  it('finds addresses at known providers and at unknown domains unknown, never invalid, and says why', async () => {
    const addresses = ['jane@gmail.com', 'joe@yahoo.com', 'someone@example.org', 'x@no-such-domain.test'];
    const { code, stdout, stderr } = await runCli(['verify', ...local(lying), '--json', '--fail-on', 'invalid', ...addresses]);
    expect(code, stderr).toBe(0);
    const results = stdout.trim().split('\n').map((line) => JSON.parse(line) as { email: string; result: string; reason: string });
    expect(results.map((result) => result.email)).toEqual(addresses);
    for (const result of results) {
      expect(result.result, result.email).toBe('unknown');
      expect(result.reason).toMatch(/resolver is not answering truthfully.*--dns-server/);
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
