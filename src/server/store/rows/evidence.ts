import { createHash } from 'node:crypto';
import { addressKey } from '../../../engine/checks/address-key.js';
import type { EvidenceEvent, EvidenceKind } from '../../../engine/evidence/event.js';
import type { EvidencePageRequest, StoredEvidence } from '../evidence-model.js';

/** An evidence row as both dialects read it. */
export interface EvidenceRow {
  id: number | string;
  email_key: string;
  kind: EvidenceKind;
  at: string;
  status: string | null;
  diagnostic: string | null;
  source: string;
  imported_at: string;
}

/** An event's values as both dialects write them: the address by its key, the time as ISO, and the fingerprint that dedupes it. */
export interface EvidenceValues {
  emailKey: string;
  kind: EvidenceKind;
  at: string;
  status: string | null;
  diagnostic: string | null;
  source: string;
  fingerprint: string;
}

/**
 * The row an event becomes. Two events alike in every field (the address by its key, the time to
 * the millisecond) share a fingerprint, so importing the same bounces twice keeps them once.
 */
export function evidenceValues(event: EvidenceEvent): EvidenceValues {
  const values = {
    emailKey: addressKey(event.email),
    kind: event.kind,
    at: new Date(event.at).toISOString(),
    status: event.status ?? null,
    diagnostic: event.diagnostic ?? null,
    source: event.source,
  };
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([values.emailKey, values.kind, values.at, values.status, values.diagnostic, values.source]))
    .digest('base64url');
  return { ...values, fingerprint };
}

export function storedEvidence(row: EvidenceRow): StoredEvidence {
  return {
    id: Number(row.id),
    email: row.email_key,
    kind: row.kind,
    at: row.at,
    ...(row.status === null ? {} : { status: row.status }),
    ...(row.diagnostic === null ? {} : { diagnostic: row.diagnostic }),
    source: row.source,
    importedAt: row.imported_at,
  };
}

/** Each address's events, newest first, under its address key (rows in that order). */
export function byAddress(rows: readonly EvidenceRow[]): Map<string, EvidenceEvent[]> {
  const events = new Map<string, EvidenceEvent[]>();
  for (const row of rows) {
    const { id: _id, importedAt: _importedAt, ...event } = storedEvidence(row);
    const held = events.get(row.email_key);
    if (held) held.push(event);
    else events.set(row.email_key, [event]);
  }
  return events;
}

/** The keys of the asked addresses, each once. */
export const evidenceKeys = (emails: readonly string[]): string[] => [...new Set(emails.map(addressKey))];

/** A page request's cursor as the id to read below (a cursor that is no id reads from the top: the first page). */
export function cursorId(request: EvidencePageRequest): number {
  const id = Number(request.cursor);
  return request.cursor !== undefined && Number.isSafeInteger(id) && id > 0 ? id : Number.MAX_SAFE_INTEGER;
}

/** The page of `limit` rows read as limit + 1 (the one more says whether a next page exists). */
export function evidencePage(rows: readonly EvidenceRow[], limit: number): { events: StoredEvidence[]; cursor?: string } {
  const events = rows.slice(0, limit).map(storedEvidence);
  return rows.length > limit ? { events, cursor: String(events.at(-1)!.id) } : { events };
}
