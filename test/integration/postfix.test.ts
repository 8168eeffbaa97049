// The engine against a real MTA: Postfix + postgrey + dnsmasq from Debian, set up on loopback by
// test/support/postfix/setup.sh (see the README there). Nothing here is simulated.
import { describe, expect, it } from 'vitest';
import { missing } from '../support/machine.js';
import { postfixProblem, postfixVerifier } from '../support/postfix.js';

const absent = missing('test/integration/postfix.test.ts', 'the Postfix fixture', await postfixProblem());

describe.skipIf(absent)('the engine against a real Postfix', () => {
  it('finds an existing mailbox valid', async () => {
    const result = await postfixVerifier({}).verify('alice@mailbox.test');
    expect(result).toMatchObject({ email: 'alice@mailbox.test', result: 'valid' });
    expect(result.checks).toMatchObject({
      format: true,
      domainExists: true,
      hasMx: true,
      smtpStatus: 'valid',
      isCatchAll: false,
    });
  });

  it('finds an unknown mailbox invalid, quoting the 550 reply', async () => {
    const result = await postfixVerifier({}).verify('nobody@mailbox.test');
    expect(result.result).toBe('invalid');
    expect(result.checks.smtpStatus).toBe('invalid');
    expect(result.reason).toContain(
      'mailbox does not exist: 550 5.1.1 <nobody@mailbox.test>: Recipient address rejected: User unknown in virtual mailbox table',
    );
  });

  it('finds any address at the catch-all domain catch_all', async () => {
    const result = await postfixVerifier({}).verify('anything@catchall.test');
    expect(result.result).toBe('catch_all');
    expect(result.checks).toMatchObject({ isCatchAll: true, smtpStatus: 'valid' });
  });

  it('answers a greylisted mailbox at once, unknown, quoting the 450 reply (test/e2e/settling.test.ts asks it again)', async () => {
    const result = await postfixVerifier({}).verify('grey@mailbox.test');
    expect(result.result).toBe('unknown');
    expect(result.checks.smtpStatus).toBe('unknown');
    expect(result.reason).toContain('greylisted: 450 4.2.0 <grey@mailbox.test>: Recipient address rejected: Greylisted');
  });

  it('gives every verdict right in one bulk run', async () => {
    const emails = ['alice@mailbox.test', 'bob@mailbox.test', 'nobody@mailbox.test', 'grey@mailbox.test', 'x@catchall.test'];
    const verdicts = new Map<string, string>();
    await postfixVerifier({}).verifyMany(emails, (result) => {
      verdicts.set(result.email, result.result);
    });
    expect(Object.fromEntries(verdicts)).toEqual({
      'alice@mailbox.test': 'valid',
      'bob@mailbox.test': 'valid',
      'nobody@mailbox.test': 'invalid',
      'grey@mailbox.test': 'unknown',
      'x@catchall.test': 'catch_all',
    });
  });

  it("stops asking after Postfix's tenth refusal in a session, once its first slow reply has taught the limit", async () => {
    // Postfix's defaults: after 10 errors in a session every reply waits a second (smtpd_soft_error_limit,
    // smtpd_error_sleep_time). Recorded per session: how many RCPTs each one asked (one session at a time).
    const rcptsPerSession: number[] = [];
    const observer = {
      sessionOpened: () => void rcptsPerSession.push(0),
      sessionClosed: () => undefined,
      rcptAnswered: () => void (rcptsPerSession[rcptsPerSession.length - 1]! += 1),
    };
    const unknown = Array.from({ length: 25 }, (_, i) => `nobody.${i}@mailbox.test`);
    const verdicts: string[] = [];
    await postfixVerifier({ perHostConcurrency: 1 }, { observer }).verifyMany(unknown, (result) => void verdicts.push(result.result));
    expect(verdicts).toEqual(unknown.map(() => 'invalid'));
    // The catch-all probe and 10 addresses refused at full speed, the 11th answered a second late: the
    // session ends there; every later one stops at the ninth refusal, before Postfix would slow it.
    const [first, ...later] = rcptsPerSession;
    expect(first).toBe(11);
    expect(later.length).toBeGreaterThan(0);
    for (const rcpts of later) expect(rcpts).toBeLessThanOrEqual(9);
    expect(rcptsPerSession.reduce((sum, n) => sum + n, 0)).toBe(unknown.length + 1);
  });
});
