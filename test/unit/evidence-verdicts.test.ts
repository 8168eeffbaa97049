import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../src/engine/core/reason-codes.js';
import type { Verdict, VerificationResult } from '../../src/engine/core/types.js';
import type { EvidenceEvent } from '../../src/engine/evidence/event.js';
import { bouncedWithoutProbe, decidedAfterProbe, findingOf } from '../../src/server/verifier/evidence-verdicts.js';
import type { ServiceVerifier } from '../../src/server/verifier/result-reuse.js';
import { usingEvidence } from '../../src/server/verifier/evidence-verifier.js';

const EMAIL = 'ann@example.test';
const missing: EvidenceEvent = {
  email: EMAIL,
  kind: 'bounce',
  at: '2026-10-01T08:00:00.000Z',
  status: '5.1.1',
  diagnostic: '550 5.1.1 User unknown',
  source: 'postfix',
};
const full: EvidenceEvent = {
  email: EMAIL,
  kind: 'bounce',
  at: '2026-10-03T08:00:00.000Z',
  status: '4.2.2',
  diagnostic: '452 4.2.2 Mailbox full',
  source: 'postfix',
};
const delivered: EvidenceEvent = { email: EMAIL, kind: 'delivery', at: '2026-10-02T08:00:00.000Z', source: 'ses' };
const deferral: EvidenceEvent = { email: EMAIL, kind: 'deferral', at: '2026-10-04T08:00:00.000Z', source: 'exim' };

function probe(result: Verdict, reasonCode: ReasonCode): VerificationResult {
  return {
    email: EMAIL,
    result,
    reason: `probe said ${reasonCode}`,
    reasonCode,
    checks: {
      format: true,
      domainExists: true,
      hasMx: true,
      domainReachable: true,
      smtpStatus: 'unknown',
      isDisposable: false,
      isRole: false,
      isBlacklisted: false,
      isKnownProvider: false,
      isCatchAll: result === 'catch_all',
    },
  };
}

describe('what an account’s evidence makes of a verdict', () => {
  it('takes the newest event that says something of the mailbox; soft ones and deferrals never decide', () => {
    expect(findingOf([deferral, full, delivered, missing]).decisive).toBe(delivered);
    expect(findingOf([deferral, full]).decisive).toBeUndefined();
    expect(findingOf([missing, delivered]).decisive).toBe(missing);
  });

  it('answers a missing-mailbox bounce invalid, naming the date, the source and the server’s words', () => {
    const result = bouncedWithoutProbe(EMAIL, missing);
    expect(result).toMatchObject({ result: 'invalid', reasonCode: 'bounced', evidence: { kind: 'bounce', at: missing.at, source: 'postfix' } });
    expect(result.reason).toContain('2026-10-01');
    expect(result.reason).toContain('postfix');
    expect(result.reason).toContain('550 5.1.1 User unknown');
  });

  // [probe verdict, probe code, evidence, expected verdict, expected code, evidence decided]
  const table: [Verdict, ReasonCode, EvidenceEvent, Verdict, ReasonCode, boolean][] = [
    ['catch_all', 'catch_all', delivered, 'valid', 'delivered', true],
    ['unknown', 'accept_unproven', delivered, 'valid', 'delivered', true],
    ['unknown', 'not_verified', delivered, 'valid', 'delivered', true],
    ['invalid', 'mailbox_not_found', delivered, 'invalid', 'mailbox_not_found', false],
    ['invalid', 'mailbox_disabled', delivered, 'invalid', 'mailbox_disabled', false],
    ['unknown', 'timeout', delivered, 'unknown', 'timeout', false],
    ['valid', 'accepted', delivered, 'valid', 'accepted', false],
    ['valid', 'accepted', missing, 'valid', 'accepted', false],
    ['catch_all', 'catch_all', missing, 'invalid', 'bounced', true],
    ['unknown', 'accept_unproven', missing, 'invalid', 'bounced', true],
    ['invalid', 'mailbox_not_found', missing, 'invalid', 'mailbox_not_found', false],
  ];
  it.each(table)('a probe saying %s (%s) after %o', (verdict, code, event, wantVerdict, wantCode, decided) => {
    const result = decidedAfterProbe(probe(verdict, code), event);
    expect([result.result, result.reasonCode]).toEqual([wantVerdict, wantCode]);
    expect(result.evidence !== undefined).toBe(decided);
    // A probe that settles the mailbox against the evidence says the evidence was older.
    if (!decided && ((event === delivered && verdict === 'invalid') || (event === missing && verdict === 'valid'))) expect(result.reason).toMatch(/is older$/);
  });
});

describe('the verifier with evidence after it', () => {
  const asked: string[] = [];
  const inner: ServiceVerifier = {
    async verify(email: string) {
      asked.push(email);
      return { ...probe('catch_all', 'catch_all'), email };
    },
    async verifyMany(emails: Iterable<string>, onResult: (result: VerificationResult) => void | Promise<void>) {
      for (const email of emails) await onResult(await inner.verify(email));
    },
  };
  const store = {
    async evidenceFor(userId: number, emails: readonly string[]) {
      const events = new Map<string, EvidenceEvent[]>();
      if (userId !== 1) return events;
      if (emails.includes('gone@x.test')) events.set('gone@x.test', [{ ...missing, email: 'gone@x.test' }]);
      if (emails.includes('kept@x.test'))
        events.set('kept@x.test', [
          { ...full, email: 'kept@x.test' },
          { ...delivered, email: 'kept@x.test' },
        ]);
      return events;
    },
  };
  const verifier = usingEvidence(inner, store, 86_400_000 * 365, (error) => {
    throw error;
  });

  it('asks no mail host about a bounced address unless asked afresh, and reads other accounts’ asks without evidence', async () => {
    asked.length = 0;
    const results: VerificationResult[] = [];
    await verifier.verifyMany(['gone@x.test', 'kept@x.test', 'other@x.test'], (result) => void results.push(result), { owner: 1 });
    expect(asked).toEqual(['kept@x.test', 'other@x.test']);
    expect(results.map((result) => [result.email, result.result, result.reasonCode])).toEqual([
      ['gone@x.test', 'invalid', 'bounced'],
      ['kept@x.test', 'valid', 'delivered'],
      ['other@x.test', 'catch_all', 'catch_all'],
    ]);
    expect((await verifier.verify('gone@x.test', { owner: 1, fresh: true })).reasonCode).toBe('bounced');
    expect(asked).toContain('gone@x.test');
    expect((await verifier.verify('gone@x.test', { owner: 2 })).reasonCode).toBe('catch_all');
  });
});
