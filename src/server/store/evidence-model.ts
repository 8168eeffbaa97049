import type { EvidenceEvent, EvidenceKind } from '../../engine/evidence/event.js';

/** The evidence records the store hands out and takes (see EvidenceStore in store.ts). */

/** An event as kept: its address is the engine's address key (engine/checks/address-key.ts), its `at` ISO. */
export interface StoredEvidence extends EvidenceEvent {
  id: number;
  importedAt: string;
}

/** A page of an account's events, newest imports first; `cursor` asks for the next page, absent at the end. */
export interface EvidencePage {
  events: StoredEvidence[];
  cursor?: string;
}

export interface EvidencePageRequest {
  /** Only this address's events (compared by address key). */
  email?: string;
  limit: number;
  /** From a previous page's `cursor`. */
  cursor?: string;
}

/** How many events of a kind from a source the account holds. */
export interface EvidenceCount {
  kind: EvidenceKind;
  source: string;
  count: number;
}

/** What deleteEvidence deletes: all of the account's events, or those of one address or one source (both: both must match). */
export interface EvidenceSelection {
  email?: string;
  source?: string;
}
