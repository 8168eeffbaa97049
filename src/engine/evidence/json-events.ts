import { EVIDENCE_KINDS, evidenceAddress, isoTime, makeEvent, type EvidenceEvent, type EvidenceKind } from './event.js';

/**
 * One event as an API caller or a JSON file gives it: `{email, kind, at, status?, diagnostic?,
 * source?}`. Returns the event, or why it is refused (a sentence the caller sees).
 */
export function eventFromJson(value: unknown, defaultSource: string): EvidenceEvent | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'an event must be an object';
  const fields = value as Record<string, unknown>;
  const email = typeof fields.email === 'string' ? evidenceAddress(fields.email) : null;
  if (email === null) return `email ${JSON.stringify(fields.email ?? null)} is not an address`;
  if (typeof fields.kind !== 'string' || !EVIDENCE_KINDS.includes(fields.kind as EvidenceKind)) {
    return `kind must be one of ${EVIDENCE_KINDS.join(', ')}`;
  }
  const at = typeof fields.at === 'string' || typeof fields.at === 'number' ? isoTime(fields.at) : null;
  if (at === null) return `at ${JSON.stringify(fields.at ?? null)} is not a time (ISO 8601)`;
  for (const name of ['status', 'diagnostic', 'source'] as const) {
    if (fields[name] !== undefined && fields[name] !== null && typeof fields[name] !== 'string') return `${name} must be a string`;
  }
  const status = optional(fields.status);
  if (status !== undefined && !/^[245]\.\d{1,3}\.\d{1,3}$/.test(status)) return `status ${JSON.stringify(status)} is not an enhanced status code (like 5.1.1)`;
  const source = optional(fields.source) ?? defaultSource;
  if (source.length > 64) return 'source is longer than 64 characters';
  return makeEvent({ email, kind: fields.kind as EvidenceKind, at, status, diagnostic: optional(fields.diagnostic), source });
}

function optional(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
