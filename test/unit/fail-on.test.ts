import { describe, expect, it } from 'vitest';
import { ExitCode, ShareExceededError, UsageError, VerdictMatchedError } from '../../src/cli/output/errors.js';
import { enforceFailOn, judge, parseFailOn } from '../../src/cli/output/fail-on.js';
import type { ReasonCode } from '../../src/engine/core/reason-codes.js';
import type { Verdict, VerificationResult } from '../../src/engine/core/types.js';
import { parseCommandLine } from '../support/cli-parse.js';
import { parse as parseResults } from '../../src/cli/commands/bulk/results.js';
import { resumeCommand } from '../../src/cli/commands/bulk/support/output.js';

/** `--fail-on` of the bulk commands: its values read, and results judged against them. */

function result(email: string, verdict: Verdict, reasonCode: ReasonCode = verdict === 'invalid' ? 'mailbox_not_found' : 'accepted'): VerificationResult {
  return { email, result: verdict, reasonCode, reason: '', checks: {} } as unknown as VerificationResult;
}

/** `count` results of `verdict` then `rest` valid ones. */
function list(verdict: Verdict, count: number, rest: number): VerificationResult[] {
  return [
    ...Array.from({ length: count }, (_, index) => result(`${verdict}${index}@example.com`, verdict)),
    ...Array.from({ length: rest }, (_, index) => result(`ok${index}@example.com`, 'valid')),
  ];
}

describe('parseFailOn', () => {
  it('reads shares as percentages or fractions, bare selectors as any, repeated and comma-listed', () => {
    expect(parseFailOn(['invalid=5%', 'Unknown=0.2,mailbox_full', 'risky=.5'])).toEqual({
      any: ['mailbox_full'],
      shares: [
        { selector: 'invalid', share: 0.05, given: 'invalid=5%' },
        { selector: 'unknown', share: 0.2, given: 'Unknown=0.2' },
        { selector: 'risky', share: 0.5, given: 'risky=.5' },
      ],
    });
    expect(parseFailOn(['catch_all=0%', 'valid=100%']).shares.map((gate) => gate.share)).toEqual([0, 1]);
  });

  it.each([
    ['invalid=5', '"invalid=5" needs a share'],
    ['invalid=150%', '"invalid=150%" needs a share'],
    ['invalid=-1%', '"invalid=-1%" needs a share'],
    ['invalid=', '"invalid=" needs a share'],
    ['invalid=five', '"invalid=five" needs a share'],
    ['often=5%', '"often=5%" names no verdict'],
    ['nonsense', '"nonsense" names no verdict'],
    [',', 'names no verdict'],
  ])('refuses %j naming the flag (exit 2)', (value, message) => {
    const parsing = () => parseFailOn([value]);
    expect(parsing).toThrow(UsageError);
    expect(parsing).toThrow(`--fail-on`);
    expect(parsing).toThrow(message);
  });

  it('is repeatable on bulk results', async () => {
    const parsed = await parseResults(parseCommandLine(['bulk', 'results', 'job-1', '--fail-on', 'invalid=5%', '--fail-on', 'unknown=20%']));
    expect(parsed.failOn.shares.map((gate) => gate.given)).toEqual(['invalid=5%', 'unknown=20%']);
  });
});

describe('judge and enforceFailOn', () => {
  it('fails only when a share is strictly exceeded, saying which and by how much', () => {
    const gate = parseFailOn(['invalid=5%']);
    expect(judge(list('invalid', 25, 475), gate).exceeded).toEqual([]);
    expect(() => enforceFailOn(list('invalid', 25, 475), gate)).not.toThrow();
    expect(judge(list('invalid', 36, 464), gate).exceeded).toEqual(['invalid is 7.2% of 500 addresses, above --fail-on invalid=5%']);
    // Just above the share: enough decimals to show it is above.
    expect(judge(list('invalid', 26, 474), parseFailOn(['invalid=5.1%'])).exceeded).toEqual(['invalid is 5.2% of 500 addresses, above --fail-on invalid=5.1%']);
    expect(judge(list('invalid', 2521, 47479), gate).exceeded[0]).toMatch(/^invalid is 5.04% of 50,000 addresses/);
  });

  it('exits 10 for a share, before 3 for a bare selector; 0% fails on any one', () => {
    const results = list('invalid', 1, 99);
    const thrown = (values: string[]) => {
      try {
        enforceFailOn(results, parseFailOn(values));
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const share = thrown(['invalid,invalid=0%']);
    expect(share).toBeInstanceOf(ShareExceededError);
    expect((share as ShareExceededError).exitCode).toBe(ExitCode.shareExceeded);
    expect(ExitCode.shareExceeded).toBe(10);
    expect(thrown(['invalid'])).toBeInstanceOf(VerdictMatchedError);
    expect(thrown(['mailbox_not_found=0.5%'])).toBeInstanceOf(ShareExceededError);
    expect(thrown(['unknown=0%', 'unknown'])).toBeUndefined();
  });

  it('names every share exceeded, and judges an empty list as passing', () => {
    const results = [...list('invalid', 10, 0), ...list('unknown', 30, 60)];
    expect(judge(results, parseFailOn(['invalid=5%', 'unknown=20%', 'valid=90%'])).exceeded).toEqual([
      'invalid is 10% of 100 addresses, above --fail-on invalid=5%',
      'unknown is 30% of 100 addresses, above --fail-on unknown=20%',
    ]);
    expect(() => enforceFailOn([], parseFailOn(['invalid=0%']))).not.toThrow();
  });
});

describe('resumeCommand', () => {
  it('carries the gate, so that a resumed wait judges the results as the interrupted run would have', () => {
    const failOn = parseFailOn(['invalid,mailbox_full', 'unknown=20%']);
    expect(resumeCommand(['job-1'], { output: 'out.csv' }, failOn)).toBe(
      'mailverify bulk results job-1 --wait --fail-on invalid,mailbox_full --fail-on unknown=20% --output out.csv',
    );
    expect(resumeCommand(['job-1'], {})).toBe('mailverify bulk results job-1 --wait');
  });
});
