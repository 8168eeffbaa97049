import type { EvidenceEvent, EvidenceRead } from '../../engine/evidence/event.js';
import { SKIPS_LISTED, type AddressEvidence, type EvidenceImport } from '../../wire/evidence.js';
import type { EvidenceStore } from '../store/store.js';
import { findingOf } from './evidence-verdicts.js';

/**
 * Reads what `reads` yields into the account's evidence, all of it in one transaction (nothing
 * half-imported), and says what was read, added and skipped: the API's and the dashboard's import.
 */
export async function importEvidence(
  store: Pick<EvidenceStore, 'addEvidence'>,
  userId: number,
  reads: AsyncIterable<EvidenceRead> | Iterable<EvidenceRead>,
): Promise<EvidenceImport> {
  const events: EvidenceEvent[] = [];
  const skipped: EvidenceImport['skipped'] = [];
  let skippedCount = 0;
  for await (const read of reads) {
    if ('event' in read) events.push(read.event);
    else if (++skippedCount <= SKIPS_LISTED) skipped.push({ where: read.skip.where, why: read.skip.why });
  }
  const { added } = events.length > 0 ? await store.addEvidence(userId, events) : { added: 0 };
  return { read: events.length, added, skipped, skippedCount };
}

/** What an address's events (newest first) within the window decide, as `GET /v1/evidence?email=` says it. */
export function decisionOf(events: readonly EvidenceEvent[], windowMs: number, now = Date.now()): AddressEvidence['decision'] {
  const since = new Date(now - windowMs).toISOString();
  const { decisive } = findingOf(events.filter((event) => event.at >= since));
  if (!decisive) return null;
  const { kind, at, source } = decisive;
  return kind === 'bounce'
    ? { result: 'invalid', reasonCode: 'bounced', kind, at, source }
    : { result: 'valid', reasonCode: 'delivered', kind: 'delivery', at, source };
}
