// The postmaster control (docs/architecture.md "What a reply means"), against real SMTP servers on
// loopback whose refusals name nothing the reply table knows: refused for postmaster too, the
// refusal is about us (`unknown`, `sender_refused`); postmaster accepted, it stands (`invalid`).
// Counted at the servers: postmaster is asked once per host for the verifier's life, at most once
// per domain per session, and never where a provider rule says it proves nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type VerificationResult, type Verifier } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

const HOSTS = { refusing: '127.0.28.1', shared: '127.0.28.2', wavering: '127.0.28.3', ruled: '127.0.28.4', limited: '127.0.28.5' };
/** Polish for "refused to take the message": words no row of the table reads, as a server that speaks no English sends them. */
const UNREADABLE = 'Odmowa przyjecia wiadomosci';

let dns: DnsFixture;
let port: number;
let rulesDir: string;
const smtp: Record<keyof typeof HOSTS, SmtpFixture> = {} as never;

beforeAll(async () => {
  port = await freePort(Object.values(HOSTS));
  // Refuses us whatever the address, postmaster too.
  smtp.refusing = await startSmtpServer({ host: HOSTS.refusing, port, unknownUserText: UNREADABLE });
  // Two domains on one host: each takes its real mailboxes and postmaster, and refuses the rest in the same words.
  smtp.shared = await startSmtpServer({
    host: HOSTS.shared,
    port,
    unknownUserText: UNREADABLE,
    mailboxes: ['ann@one.test', 'postmaster@one.test', 'ann@two.test', 'postmaster@two.test'],
  });
  smtp.wavering = await startSmtpServer({
    host: HOSTS.wavering,
    port,
    unknownUserText: UNREADABLE,
    replies: { 'postmaster@wavering.test': '451 4.3.0 Temporary lookup failure' },
  });
  smtp.ruled = await startSmtpServer({ host: HOSTS.ruled, port, unknownUserText: UNREADABLE });
  smtp.limited = await startSmtpServer({ host: HOSTS.limited, port, unknownUserText: UNREADABLE, mailboxes: ['ann@limited.test', 'postmaster@limited.test'] });
  dns = await startDnsServer(
    {
      ...mxZones('refusing.test', { 'mx.refusing.test': HOSTS.refusing }),
      ...mxZones('one.test', { 'mx.shared.test': HOSTS.shared }),
      ...mxZones('two.test', { 'mx.shared.test': HOSTS.shared }),
      ...mxZones('wavering.test', { 'mx.wavering.test': HOSTS.wavering }),
      ...mxZones('ruled.test', { 'mx.ruled.test': HOSTS.ruled }),
      ...mxZones('limited.test', { 'mx.limited.test': HOSTS.limited }),
    },
    { host: '127.0.28.10' },
  );
  rulesDir = mkdtempSync(join(tmpdir(), 'mailverify-postmaster-'));
  const rules = {
    'ruled.test': { postmasterProvesSender: false, source: 'test: takes postmaster from anyone' },
    'limited.test': { rcptsPerSession: 1, source: 'test: one RCPT per session' },
  };
  writeFileSync(join(rulesDir, 'rules.json'), JSON.stringify(rules));
});

afterAll(async () => {
  await Promise.all([...Object.values(smtp).map((server) => server?.close()), dns?.close()]);
  if (rulesDir) rmSync(rulesDir, { recursive: true, force: true });
});

const newVerifier = (): Verifier => createVerifier(fixtureOptions(dns, port, { providerRulesFile: join(rulesDir, 'rules.json') }));

async function verifyAll(verifier: Verifier, emails: string[]): Promise<Record<string, VerificationResult>> {
  const results: Record<string, VerificationResult> = {};
  await verifier.verifyMany(emails, (result) => void (results[result.email] = result));
  return results;
}

const postmasterRcpts = (fixture: SmtpFixture): number => fixture.commands.filter((line) => /^RCPT TO:<postmaster@/i.test(line)).length;

describe('the postmaster control', () => {
  it('calls a refusal about us unknown when postmaster is refused the same way', async () => {
    const results = await verifyAll(newVerifier(), ['ann@refusing.test', 'bob@refusing.test']);
    for (const email of ['ann@refusing.test', 'bob@refusing.test']) {
      expect(results[email]).toMatchObject({ result: 'unknown', reasonCode: 'sender_refused' });
      expect(results[email]!.reason).toContain(`refused for the sender, not the address: 550 ${UNREADABLE}`);
      expect(results[email]!.reason).toMatch(/postmaster@refusing\.test was refused too: 550 Odmowa/);
    }
    expect(postmasterRcpts(smtp.refusing)).toBe(1);
  });

  it('lets the refusal stand when postmaster is accepted, asking once per host for the run across domains and sessions', async () => {
    const verifier = newVerifier();
    const first = await verifyAll(verifier, ['ann@one.test', 'nobody@one.test', 'nemo@one.test', 'ann@two.test', 'nobody@two.test']);
    expect(first['ann@one.test']).toMatchObject({ result: 'valid', reasonCode: 'accepted' });
    expect(first['ann@two.test']).toMatchObject({ result: 'valid', reasonCode: 'accepted' });
    for (const email of ['nobody@one.test', 'nemo@one.test', 'nobody@two.test']) {
      expect(first[email]).toMatchObject({ result: 'invalid', reasonCode: 'unreadable_refusal' });
      expect(first[email]!.reason).toMatch(/postmaster@(one|two)\.test( at mx\.shared\.test)? was accepted, so the refusal is about the address$/);
    }
    expect(postmasterRcpts(smtp.shared)).toBe(1);
    // A later run on the same verifier reuses the host's answer.
    const later = await verifyAll(verifier, ['zed@two.test', 'ann@one.test']);
    expect(later['zed@two.test']).toMatchObject({ result: 'invalid', reasonCode: 'unreadable_refusal' });
    expect(later['ann@one.test']).toMatchObject({ result: 'valid' });
    expect(postmasterRcpts(smtp.shared)).toBe(1);
  });

  it('asks at most once per domain per session while postmaster gets no conclusive answer', async () => {
    const emails = Array.from({ length: 8 }, (_, i) => `user${i}@wavering.test`);
    const results = await verifyAll(newVerifier(), emails);
    for (const email of emails) expect(results[email]).toMatchObject({ result: 'invalid', reasonCode: 'unreadable_refusal' });
    const asked = postmasterRcpts(smtp.wavering);
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(smtp.wavering.sessionCount());
  });

  it('waits for the next session where the session has no RCPT left for it, and asks only the control there', async () => {
    const results = await verifyAll(newVerifier(), ['ann@limited.test', 'nobody@limited.test']);
    expect(results['ann@limited.test']).toMatchObject({ result: 'valid' });
    expect(results['nobody@limited.test']).toMatchObject({ result: 'invalid', reasonCode: 'unreadable_refusal' });
    expect(smtp.limited.rcptCount('nobody@limited.test')).toBe(1);
    expect(postmasterRcpts(smtp.limited)).toBe(1);
    // One RCPT per session: the catch-all probe, postmaster, ann and nobody.
    expect(smtp.limited.sessionCount()).toBe(4);
  });

  it('is not asked where a provider rule says postmaster proves nothing', async () => {
    const results = await verifyAll(newVerifier(), ['ann@ruled.test', 'bob@ruled.test']);
    for (const email of ['ann@ruled.test', 'bob@ruled.test']) expect(results[email]).toMatchObject({ result: 'invalid', reasonCode: 'unreadable_refusal' });
    expect(postmasterRcpts(smtp.ruled)).toBe(0);
  });
});
