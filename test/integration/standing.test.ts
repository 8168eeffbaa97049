import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialerFor } from '../../src/engine/net/egress.js';
import { checkStanding } from '../../src/engine/standing.js';
import { resolveEngineOptions } from '../../src/engine/options.js';
import { SmtpSession } from '../../src/engine/smtp/session.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';

/**
 * The address mail hosts say back, read from real MTAs (test/support/mtas/, test/support/postfix/),
 * and how the standing check reads lists that do not answer the question.
 */
const EXIM = '127.0.12.25';
const OPENSMTPD = '127.0.12.26';
const POSTFIX = '127.0.0.25';
const SOURCE = '127.0.33.9';

let dns: DnsFixture;

beforeAll(async () => {
  dns = await startDnsServer(
    {
      // Spamhaus's answer to a query through a public resolver, and DBL's to a query about an address.
      '9.33.0.127.zen.test': { records: [{ type: 'A', address: '127.255.255.254' }] },
      '9.33.0.127.dbl.test': { records: [{ type: 'A', address: '127.0.1.255' }] },
      '9.33.0.127.in-addr.arpa': { records: [{ type: 'PTR', domain: 'probe.standing.test' }] },
      'probe.standing.test': { records: [{ type: 'A', address: SOURCE }] },
    },
    { host: '127.0.33.4' },
  );
});

afterAll(async () => {
  await dns?.close();
});

const introduce = (address: string) =>
  SmtpSession.introduce(
    { address, hostname: address },
    {
      port: 25,
      heloName: 'probe.standing.test',
      mailFrom: 'probe@standing.test',
      connectTimeoutMs: 2_000,
      commandTimeoutMs: 5_000,
      startTls: false,
      dial: dialerFor({ proxy: null, sourceAddress: SOURCE }),
    },
  );

describe('what real MTAs say back to EHLO', () => {
  it('Exim and OpenSMTPD name the address we come from; Postfix names none', async () => {
    expect(await introduce(EXIM)).toEqual({ seenAs: SOURCE });
    expect(await introduce(OPENSMTPD)).toEqual({ seenAs: SOURCE });
    expect(await introduce(POSTFIX)).toEqual({ seenAs: null });
  });
});

describe('checkStanding', () => {
  it('takes a refused query for no answer and a domain list for no address list, never for a listing', async () => {
    const options = resolveEngineOptions({
      dnsServers: [dns.server],
      dnsTimeoutMs: 2_000,
      smtpPort: 25,
      connectTimeoutMs: 2_000,
      allowPrivateNetworks: true,
      sourceAddresses: [SOURCE],
      heloName: 'probe.standing.test',
      dnsblZones: ['zen.test', 'dbl.test'],
    });
    const [standing] = await checkStanding(options, [EXIM]);
    expect(standing).toMatchObject({
      egress: SOURCE,
      address: SOURCE,
      listed: {},
      checks: { blocklists: 'skipped', 'reverse dns': 'ok', 'helo and ptr': 'ok' },
    });
    expect(standing!.findings[0]).toEqual({
      check: `blocklists ${SOURCE}`,
      status: 'skipped',
      detail: `${SOURCE} (as ${EXIM} said back): no list answered; zen.test gave no answer (127.255.255.254: the list refuses the query, as lists do when asked through a public or shared resolver or over their free limit; ask through a resolver of your own); dbl.test lists domains, not addresses`,
    });
  });
});
