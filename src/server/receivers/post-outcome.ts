import type { EvidenceEvent } from '../../engine/evidence/event.js';
import type { EspItem } from '../../engine/evidence/esp.js';
import { ProblemError } from '../http/errors.js';
import type { EvidenceReceiver, EvidenceReceiverStore, EvidenceStore } from '../store/store.js';
import type { SignatureRefusal } from './sendgrid-signature.js';

/** Where a receiver's events go: the account's evidence, and the receiver's note that it took some. */
export interface EvidenceSink {
  evidence: Pick<EvidenceStore, 'addEvidence'>;
  receivers: Pick<EvidenceReceiverStore, 'noteReceived'>;
}

/** What a post brought: events read, added (not already kept), and entries that were no evidence. */
export interface PostOutcome {
  received: number;
  added: number;
  skipped: number;
}

/** As many events as one post may carry, as many as `POST /v1/evidence` takes. */
export const MAX_EVENTS_PER_POST = 10_000;

/** A refused signature as its answer: 401 for none, 403 for a wrong or stale one. */
export function refusal({ refused, why }: SignatureRefusal): ProblemError {
  return new ProblemError(refused === 'unsigned' ? 'unauthorized' : 'bad_signature', why);
}

/** Keeps what the ESP's converter made of a verified post as the receiver owner's evidence. */
export async function keepEvents(receiver: EvidenceReceiver, items: readonly EspItem[], sink: EvidenceSink): Promise<PostOutcome> {
  if (items.length > MAX_EVENTS_PER_POST) {
    throw new ProblemError('payload_too_large', `A post may carry at most ${MAX_EVENTS_PER_POST} events; this one has ${items.length}.`);
  }
  const events = items.flatMap((item): EvidenceEvent[] => ('event' in item ? [item.event] : []));
  const { added } = events.length === 0 ? { added: 0 } : await sink.evidence.addEvidence(receiver.userId, events);
  if (events.length > 0) await sink.receivers.noteReceived(receiver.id, 'events');
  return { received: events.length, added, skipped: items.length - events.length };
}
