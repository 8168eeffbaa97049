// The egress pool against a real Postfix (test/support/postfix/): it refuses one loopback source
// address as a blocklisted client (554 at RCPT) and serves the other. The engine must route every
// address through the other, and never connect from the refused one again while it is benched.
import { describe, expect, it } from 'vitest';
import type { VerificationResult } from '../../src/engine/core/types.js';
import { missing } from '../support/machine.js';
import { BLOCKED_CLIENTS, postfixLogFromNow, postfixProblem, postfixVerifier } from '../support/postfix.js';

const SERVED_CLIENT = '127.0.0.76';
const [BLOCKED_CLIENT, OTHER_BLOCKED_CLIENT] = BLOCKED_CLIENTS;
const absent = missing('test/integration/egress-pool.test.ts', 'the Postfix fixture', await postfixProblem());

const EXPECTED: Record<string, VerificationResult['result']> = {
  'alice@mailbox.test': 'valid',
  'bob@mailbox.test': 'valid',
  'nobody@mailbox.test': 'invalid',
  'anyone@catchall.test': 'catch_all',
};

/** The Postfix fixture's verifier, from `sourceAddresses`: no DNSBL lookups, no greylist retries. */
function poolVerifier(sourceAddresses: string[]) {
  return postfixVerifier({ sourceAddresses, dnsblZones: [] });
}

async function verdicts(verifier: ReturnType<typeof poolVerifier>, emails = Object.keys(EXPECTED)): Promise<Map<string, VerificationResult>> {
  const results = new Map<string, VerificationResult>();
  await verifier.verifyMany(emails, (result) => void results.set(result.email, result));
  return results;
}

const resultsOf = (results: Map<string, VerificationResult>) => Object.fromEntries([...results].map(([email, result]) => [email, result.result]));

describe.skipIf(absent)('an egress pool against a real Postfix that refuses one source address', () => {
  it('gets every verdict right through the other, and benches the refused one at the host', { timeout: 60_000 }, async () => {
    // The refused address first: ties go to the pool's order, so it is the one tried first.
    const verifier = poolVerifier([BLOCKED_CLIENT, SERVED_CLIENT]);
    const first = postfixLogFromNow();
    expect(resultsOf(await verdicts(verifier))).toEqual(EXPECTED);
    // It was tried (the test means something) and refused, then left alone.
    expect(await first.connectionsFrom(BLOCKED_CLIENT)).toBeGreaterThanOrEqual(1);
    expect(await first.connectionsFrom(SERVED_CLIENT)).toBeGreaterThanOrEqual(1);

    const again = postfixLogFromNow();
    expect(resultsOf(await verdicts(verifier))).toEqual(EXPECTED);
    expect(await again.connectionsFrom(BLOCKED_CLIENT)).toBe(0);
    expect(await again.connectionsFrom(SERVED_CLIENT)).toBeGreaterThanOrEqual(1);
  });

  it('answers unknown with egress_benched, a condition of ours, once the host refused every egress', { timeout: 60_000 }, async () => {
    const results = await verdicts(poolVerifier([BLOCKED_CLIENT, OTHER_BLOCKED_CLIENT]));
    for (const result of results.values()) {
      expect(result).toMatchObject({ result: 'unknown', reasonCode: 'egress_benched' });
      expect(result.reason).toMatch(/^(not asked: )?mx\.mailbox\.test refused every egress of ours \(2\) for reputation, not this address/);
    }
    expect(results.size).toBe(Object.keys(EXPECTED).length);
  });

  it("keeps the server's answer with a pool of one: there is nowhere else to ask", { timeout: 60_000 }, async () => {
    const alone = await verdicts(poolVerifier([BLOCKED_CLIENT]), ['alice@mailbox.test', 'bob@mailbox.test']);
    for (const result of alone.values()) expect(result).toMatchObject({ result: 'unknown', reasonCode: 'ip_blocked' });
  });
});
