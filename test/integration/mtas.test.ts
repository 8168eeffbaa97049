// The engine against two more real MTAs besides Postfix: Exim and OpenSMTPD from Debian, with
// dnsmasq, set up on loopback by `npm run test:setup` (test/support/mtas/setup.sh, see the README there). Nothing here
// is simulated: every reply comes from the real daemon, configured as the README describes.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { setTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DnsClient } from '../../src/engine/dns/resolver.js';
import { createVerifier } from '../../src/engine/index.js';
import { missing } from '../support/machine.js';
import type { VerificationResult } from '../../src/engine/core/types.js';

const BASE = '/opt/mailverify-mtas';
const DNS_SERVER = '127.0.12.53:5353';
const PROBE_TIMEOUT_MS = 2_000;
/** How long an MTA may take to log a refused RCPT, and how often its log is read meanwhile. */
const LOG_WAIT_MS = 10_000;
const LOG_POLL_MS = 50;

interface Mta {
  name: string;
  address: string;
  /** Its domain: alice@ and bob@ exist, deferred@ is deferred, members-only@ refused by policy. */
  domain: string;
  /** Where it logs every refused RCPT with the address. */
  log: string;
}

const MTAS: Mta[] = [
  { name: 'Exim', address: '127.0.12.25', domain: 'exim.test', log: `${BASE}/exim/log/mainlog` },
  { name: 'OpenSMTPD', address: '127.0.12.26', domain: 'opensmtpd.test', log: `${BASE}/opensmtpd/log/smtpd.log` },
];

/** Why an MTA cannot be used (no greeting on port 25), or undefined when it greets. */
function greetingProblem(address: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port: 25, timeout: PROBE_TIMEOUT_MS });
    const done = (problem?: string): void => {
      socket.destroy();
      resolve(problem);
    };
    socket.once('data', (greeting) => done(greeting.toString().startsWith('220') ? undefined : `${address} greeted with ${greeting.toString()}`));
    socket.once('timeout', () => done(`${address}:25 sent no greeting`));
    socket.once('error', (error) => done(`${address}:25: ${error.message}`));
  });
}

/** Why the fixtures' dnsmasq cannot be used (it does not answer for the MTAs' domains), or undefined. */
async function dnsProblem(): Promise<string | undefined> {
  const answer = await new DnsClient({ servers: [DNS_SERVER], timeoutMs: PROBE_TIMEOUT_MS }).mx(MTAS[0]!.domain);
  return answer.ok ? undefined : `${DNS_SERVER} answered MX ${MTAS[0]!.domain} with ${answer.failure}`;
}

const problems = (await Promise.all([...MTAS.map((mta) => greetingProblem(mta.address)), dnsProblem()])).filter(Boolean);
const absent = missing('test/integration/mtas.test.ts', 'the Exim and OpenSMTPD fixture', problems.length > 0 ? problems.join('; ') : undefined);

/** Lines of an MTA's log that mention `address`, counted to prove how often it was asked. */
async function logMentions(mta: Mta, address: string): Promise<number> {
  const log = await readFile(mta.log, 'utf8');
  return log.split('\n').filter((line) => line.includes(`<${address}>`)).length;
}

/**
 * The mentions once there are at least `atLeast`: an MTA may write its log line just after its
 * reply, so the line can lag behind the verdict. A second RCPT would have been answered before
 * the verdict too, so it is logged by then as well.
 */
async function settledMentions(mta: Mta, address: string, atLeast: number): Promise<number> {
  for (let waited = 0; waited < LOG_WAIT_MS; waited += LOG_POLL_MS) {
    const count = await logMentions(mta, address);
    if (count >= atLeast) return count;
    await setTimeout(LOG_POLL_MS);
  }
  return logMentions(mta, address);
}

function verify(email: string): Promise<VerificationResult> {
  return createVerifier({
    dnsServers: [DNS_SERVER],
    smtpPort: 25,
    allowPrivateNetworks: true,
    webCheck: false,
    dnsblZones: [],
    heloName: 'probe.verifier.test',
    mailFrom: 'probe@verifier.test',
    connectTimeoutMs: 5_000,
    commandTimeoutMs: 5_000,
    retryScheduleMs: [],
  }).verify(email);
}

describe.skipIf(absent)('the engine against real Exim and OpenSMTPD', () => {
  describe.each(MTAS)('$name', (mta) => {
    const { domain } = mta;

    it('finds a real mailbox valid', async () => {
      const result = await verify(`alice@${domain}`);
      expect(result.result).toBe('valid');
      expect(result.checks).toMatchObject({ domainExists: true, hasMx: true, smtpStatus: 'valid', isCatchAll: false });
    });

    it('finds an unknown user invalid, asking it once', async () => {
      const address = `gone.${randomBytes(4).toString('hex')}@${domain}`;
      const result = await verify(address);
      expect(result.result).toBe('invalid');
      expect(result.checks.smtpStatus).toBe('invalid');
      // Exim: 550 Unrouteable address; OpenSMTPD: 524 5.2.4 Mailing list expansion problem.
      expect(result.reason).toMatch(/\b5[25]\d /);
      expect(await settledMentions(mta, address, 1)).toBe(1);
    });

    it('finds any address at the catch-all domain catch_all', async () => {
      const result = await verify(`anyone.${randomBytes(4).toString('hex')}@catchall.${domain}`);
      expect(result.result).toBe('catch_all');
      expect(result.checks).toMatchObject({ isCatchAll: true, smtpStatus: 'valid' });
    });

    it('leaves a deferred recipient unknown, asking it once with retries off', async () => {
      const address = `deferred@${domain}`;
      const before = await logMentions(mta, address);
      const result = await verify(address);
      expect(result.result).toBe('unknown');
      expect(result.checks.smtpStatus).toBe('unknown');
      expect(result.reason).toMatch(/451 Temporary/);
      // A temporary failure that does not say "greylisted" is not called that.
      expect(result.reason).not.toMatch(/greylist/i);
      expect(await settledMentions(mta, address, before + 1)).toBe(before + 1);
    });

    it('leaves a policy refusal (5.7.1) unknown: it says nothing about the mailbox', async () => {
      const result = await verify(`members-only@${domain}`);
      expect(result.result).toBe('unknown');
      expect(result.checks.smtpStatus).toBe('unknown');
      expect(result.reason).toMatch(/550 5\.7\.1 /);
    });

    it("finds an address invalid when the domain's own MX refuses to relay for it", async () => {
      const result = await verify(`someone@norelay.${domain}`);
      expect(result.result).toBe('invalid');
      expect(result.checks.smtpStatus).toBe('invalid');
      // Exim: 550 relay not permitted; OpenSMTPD: 550 Invalid recipient.
      expect(result.reason).toMatch(/\b550 (relay not permitted|Invalid recipient)/);
    });
  });
});
