/** Shared set-up of the engine's integration tests: engine options aimed at the loopback fixtures. */
import type { EngineOptions } from '../../src/engine/index.js';
import type { DnsFixture, RecordSpec, ZoneBehaviour } from './dns-server.js';

/** Options for a verifier that asks only the fixtures: their DNS server, their SMTP port, short timeouts. */
export function fixtureOptions(dns: DnsFixture, smtpPort: number, overrides: Partial<EngineOptions> = {}): Partial<EngineOptions> {
  return {
    dnsServers: [dns.server],
    smtpPort,
    allowPrivateNetworks: true,
    webCheck: false,
    dnsblZones: [],
    heloName: 'probe.mailverify.test',
    mailFrom: 'probe@mailverify.test',
    dnsTimeoutMs: 1_000,
    connectTimeoutMs: 1_000,
    commandTimeoutMs: 1_000,
    retryScheduleMs: [],
    ...overrides,
  };
}

/** A domain whose MX records point at `hosts` in order, each host name resolving to its address. */
export function mxZones(domain: string, hosts: Record<string, string>): Record<string, ZoneBehaviour> {
  const names = Object.keys(hosts);
  const mxRecords: RecordSpec[] = names.map((exchange, index) => ({ type: 'MX', exchange, priority: 10 * (index + 1) }));
  return {
    [domain]: { records: mxRecords },
    ...Object.fromEntries(names.map((name) => [name, { records: [{ type: 'A', address: hosts[name]! }] }])),
  };
}

/** The flags of `verify --local`, `bulk submit --local` and `mcp --local` that aim a spawned CLI at the fixtures only. */
export function localFixtureFlags(dns: DnsFixture, smtpPort: number): string[] {
  return [
    '--local',
    '--dns-server',
    dns.server,
    '--smtp-port',
    String(smtpPort),
    '--allow-private-networks',
    '--no-web-check',
    '--retry-schedule',
    'none',
    '--dnsbl-zone',
    'dnsbl.test',
  ];
}
