/** The job page's results table as the template renders it: the service's own failure said once, a suggestion in a cell of its own. */
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { describe, expect, it } from 'vitest';
import { cannotVerifyBanner } from '../../src/server/dashboard/pages/jobs.js';
import type { VerificationResult } from '../../src/engine/core/types.js';

const eta = new Eta({ autoEscape: true, autoTrim: false, views: fileURLToPath(new URL('../../web/views/', import.meta.url)) });
const LONG_REASON =
  "the verification service's DNS resolver is not answering truthfully at the moment, so the domain could not be looked up; this says nothing about the address";

const result = (email: string, fields: Partial<VerificationResult>) =>
  ({ email, result: 'unknown', reasonCode: 'resolver_untruthful', reason: LONG_REASON, checks: {}, ...fields }) as VerificationResult;

function render(results: VerificationResult[]): string {
  const job = { id: 'job-1', status: 'completed', processed: results.length, total: results.length };
  return eta.render('job', { job, percent: 100, breakdown: [], results, cannotVerify: cannotVerifyBanner(results), listOnServer: false, csrf: 'x' });
}

describe('the job page', () => {
  it("says a reason of the service's own failure once, above the rows, which show its code", () => {
    const html = render([
      result('a@example.org', {}),
      result('b@example.org', {}),
      result('c@example.org', { result: 'invalid', reasonCode: 'domain_not_found', reason: 'the domain does not exist' }),
    ]);
    expect(html.split(LONG_REASON.replaceAll("'", '&#39;'))).toHaveLength(2);
    expect(html).toMatch(/<strong>2 results are unknown \(<code>resolver_untruthful<\/code>\)<\/strong>/);
    expect(html).toContain('<td><code>resolver_untruthful</code></td><td class="reason">the service could not verify (above)</td>');
    expect(html).toContain('<td class="reason">the domain does not exist</td>');
  });

  it('puts a suggestion in a cell of its own, apart from the reason', () => {
    const html = render([
      result('ann@gmial.com', { result: 'invalid', reasonCode: 'domain_not_found', reason: 'the domain does not exist', suggestion: 'ann@gmail.com' }),
    ]);
    expect(html).toContain('<td class="reason">the domain does not exist</td><td class="suggestion"><strong>ann@gmail.com</strong>?</td>');
    expect(html).not.toContain('banner');
  });
});
