import type { EvidenceEvent } from '../../engine/evidence/event.js';
import { addressKey } from '../../engine/checks/address-key.js';
import type { VerificationResult } from '../../engine/core/types.js';
import type { EvidenceStore } from '../store/store.js';
import type { Asker, ServiceVerifier } from './result-reuse.js';
import { bouncedWithoutProbe, decidedAfterProbe, evidenceNotes, findingOf, type EvidenceFinding } from './evidence-verdicts.js';

type Findings = (email: string) => EvidenceFinding | undefined;

/** The result with the events' notes added to its `details`, when it is explained. */
function explained(result: VerificationResult, finding: EvidenceFinding): VerificationResult {
  if (!result.details) return result;
  return { ...result, details: { ...result.details, notes: [...result.details.notes, ...evidenceNotes(finding)] } };
}

/** What the finding makes of a probe's result. */
function afterProbe(result: VerificationResult, finding: EvidenceFinding | undefined): VerificationResult {
  if (!finding) return result;
  return explained(finding.decisive ? decidedAfterProbe(result, finding.decisive) : result, finding);
}

/** A bounce that decides before any probe (the request did not ask afresh): the answer, with no mail host asked. */
function withoutProbe(email: string, finding: EvidenceFinding | undefined, asker: Asker & { explain?: boolean }): VerificationResult | undefined {
  const decisive = finding?.decisive;
  if (!decisive || decisive.kind !== 'bounce' || asker.fresh) return undefined;
  const result = bouncedWithoutProbe(email, decisive);
  return asker.explain ? { ...result, details: { mxHosts: [], connections: [], transcript: [], notes: evidenceNotes(finding) } } : result;
}

/**
 * The verifier with the asking account's own evidence after it (docs/evidence.md "How evidence
 * decides a verdict"): a missing-mailbox bounce within the window answers `invalid` without a probe
 * (unless asked afresh), a delivery turns a probe that proved nothing into `valid`; a probe that
 * settles the mailbox wins. It sits outside the result cache, so what the cache keeps is the probe's
 * verdict, never the account's evidence, and a verdict another account left there is still read in
 * the light of this account's events. Evidence that cannot be read is reported to `onError`, and
 * the probe answers alone.
 */
export function usingEvidence<V extends ServiceVerifier>(
  verifier: V,
  evidence: Pick<EvidenceStore, 'evidenceFor'>,
  windowMs: number,
  onError: (error: unknown) => void,
): V {
  async function findings(emails: readonly string[], { owner }: Asker): Promise<Findings> {
    if (owner === undefined || emails.length === 0) return () => undefined;
    let found: Map<string, EvidenceEvent[]>;
    try {
      found = await evidence.evidenceFor(owner, emails, new Date(Date.now() - windowMs).toISOString());
    } catch (error) {
      onError(error);
      return () => undefined;
    }
    return (email) => {
      const events = found.get(addressKey(email));
      return events ? findingOf(events) : undefined;
    };
  }

  return {
    ...verifier,
    async verify(email, options = {}) {
      const finding = (await findings([email], options))(email);
      return withoutProbe(email, finding, options) ?? afterProbe(await verifier.verify(email, options), finding);
    },
    async verifyMany(emails, onResult, options = {}) {
      const list = [...emails];
      const finding = await findings(list, options);
      const rest: string[] = [];
      for (const email of list) {
        const decided = withoutProbe(email, finding(email), options);
        if (decided) await onResult(decided);
        else rest.push(email);
      }
      if (rest.length > 0) await verifier.verifyMany(rest, (result) => onResult(afterProbe(result, finding(result.email))), options);
    },
  };
}
