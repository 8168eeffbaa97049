import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type VerificationResult } from '../../src/engine/index.js';
import { RESOLVER_CANARIES } from '../../src/engine/dns/sanity.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { fixtureOptions } from '../support/engine-fixtures.js';

/** SMTP is never reached in these tests: every domain is denied or has no host. */
const NO_SMTP_PORT = 9;

let truthful: DnsFixture;
let lying: DnsFixture;

beforeAll(async () => {
  truthful = await startDnsServer({ 'nomail.test': { records: [{ type: 'TXT', data: 'v=spf1 -all' }] } }, { host: '127.0.13.1' });
  lying = await startDnsServer({}, { host: '127.0.13.2', truthful: false });
});

afterAll(async () => {
  await truthful?.close();
  await lying?.close();
});

describe('a truthful resolver', () => {
  it('is believed: NXDOMAIN is invalid, and the resolver is asked about the canaries once per verifier', async () => {
    const verifier = createVerifier(fixtureOptions(truthful, NO_SMTP_PORT));
    truthful.resetCounts();
    const first = await verifier.verify('ann@missing-domain.test');
    const second = await verifier.verify('bob@other-missing.test');
    expect(first).toMatchObject({ result: 'invalid', reason: 'the domain does not exist (NXDOMAIN)', reasonCode: 'domain_not_found' });
    expect(second.result).toBe('invalid');
    for (const canary of RESOLVER_CANARIES) expect(truthful.queryCount(canary, 'MX'), canary).toBe(1);
  });

  it('is not asked about the canaries when no answer denies a domain', async () => {
    const verifier = createVerifier(fixtureOptions(truthful, NO_SMTP_PORT));
    truthful.resetCounts();
    await verifier.verify('ann@gmail.com');
    expect(truthful.queryCount('outlook.com')).toBe(0);
  });

  it('suggests the provider a mistyped domain was meant to be, and only then', async () => {
    const verifier = createVerifier(fixtureOptions(truthful, NO_SMTP_PORT));
    const results = new Map<string, { result: string; suggestion?: string }>();
    await verifier.verifyMany(['Ann.Lee@gmial.com', 'bob@hotmial.com', 'carol@gmail.co', 'dan@missing-domain.test', 'eve@nomail.test'], (result) => {
      results.set(result.email, result);
    });
    expect(results.get('Ann.Lee@gmial.com')).toMatchObject({ result: 'invalid', suggestion: 'Ann.Lee@gmail.com' });
    expect(results.get('bob@hotmial.com')?.suggestion).toBe('bob@hotmail.com');
    expect(results.get('carol@gmail.co')?.suggestion).toBe('carol@gmail.com');
    expect(results.get('dan@missing-domain.test')).not.toHaveProperty('suggestion');
    expect(results.get('eve@nomail.test')).toMatchObject({ result: 'invalid', reason: 'the domain has neither MX nor A/AAAA records' });
  });
});

describe('a resolver that denies every name', () => {
  it('is not believed: addresses at providers and at unknown domains are unknown, never invalid, and the reason says what to do', async () => {
    const verifier = createVerifier(fixtureOptions(lying, NO_SMTP_PORT));
    const results: VerificationResult[] = [];
    await verifier.verifyMany(['jane@gmail.com', 'joe@outlook.com', 'someone@example.org', 'ann@gmial.com'], (result) => {
      results.push(result);
    });
    expect(results).toHaveLength(4);
    for (const result of results) {
      expect(result.result, result.email).toBe('unknown');
      expect(result.reason).toMatch(/^the resolver is not answering truthfully: it gives no MX records for gmail\.com, outlook\.com, yahoo\.com/);
      expect(result.reason).toContain('--dns-server');
      expect(result.reasonCode, result.email).toBe('resolver_untruthful');
      // Denied by a resolver that is not believed: neither the domain nor its MX is known to be missing.
      expect(result.notEstablished, result.email).toEqual(expect.arrayContaining(['domainExists', 'hasMx', 'isCatchAll']));
    }
    // A typo stays a likely typo whatever the resolver says.
    expect(results.find((result) => result.email === 'ann@gmial.com')?.suggestion).toBe('ann@gmail.com');
  });

  it('is asked about the canaries once for all the domains of a list', async () => {
    const verifier = createVerifier(fixtureOptions(lying, NO_SMTP_PORT));
    lying.resetCounts();
    await verifier.verifyMany(['a@one.test', 'b@two.test', 'c@three.test'], () => undefined);
    expect(lying.queryCount('gmail.com', 'MX')).toBe(1);
  });
});
