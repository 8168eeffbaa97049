import type { FromSchema } from 'json-schema-to-ts';

/**
 * The bodies of `/v1/evidence` (docs/api.md "Evidence", docs/evidence.md "API"): an account's own
 * bounces and deliveries, imported and read back. Written once for the service's schemas and the
 * client's types.
 */

/** The most events one `POST /v1/evidence` takes as JSON (more is a 413): the CLI sends longer files in batches. */
export const MAX_EVIDENCE_EVENTS = 10_000;
/** The skipped entries an import answer lists; `skippedCount` counts them all. */
export const SKIPS_LISTED = 100;
/** The longest page of `GET /v1/evidence`. */
export const MAX_EVIDENCE_PAGE = 1_000;

const kindSchema = { type: 'string', enum: ['bounce', 'delivery', 'complaint', 'deferral'] } as const;

/** What one event says of its address (docs/evidence.md "How evidence decides a verdict"). */
const meaningSchema = {
  type: 'string',
  enum: ['missing-mailbox', 'delivered', 'soft', 'not-about-address'],
  description:
    '`missing-mailbox` and `delivered` can decide a verdict; `soft` (full, deferred, complaint) and `not-about-address` (a block of the sender) never do.',
} as const;

export const evidenceImportRequestSchema = {
  type: 'object',
  required: ['events'],
  additionalProperties: false,
  properties: {
    events: {
      type: 'array',
      items: {},
      description: `Up to ${MAX_EVIDENCE_EVENTS} events \`{email, kind, at, status?, diagnostic?, source?}\`; one that is not read is skipped and said why.`,
    },
    source: { type: 'string', minLength: 1, maxLength: 100, description: 'The source of events that name none (default `api`).' },
  },
} as const;

export const evidenceImportSchema = {
  type: 'object',
  required: ['read', 'added', 'skipped', 'skippedCount'],
  additionalProperties: false,
  properties: {
    read: { type: 'integer', description: 'Events read from the body.' },
    added: { type: 'integer', description: 'Of those, the ones not held already (an identical event is kept once).' },
    skipped: {
      type: 'array',
      description: `What was not read, where and why: the first ${SKIPS_LISTED}.`,
      items: { type: 'object', required: ['where', 'why'], additionalProperties: false, properties: { where: { type: 'string' }, why: { type: 'string' } } },
    },
    skippedCount: { type: 'integer' },
  },
} as const;

export const evidenceEventSchema = {
  type: 'object',
  required: ['email', 'kind', 'at', 'source', 'meaning'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', description: 'The address as events are matched: its domain lower-case, its ASCII letters folded.' },
    kind: kindSchema,
    at: { type: 'string', format: 'date-time' },
    status: { type: 'string' },
    diagnostic: { type: 'string' },
    source: { type: 'string' },
    meaning: meaningSchema,
    importedAt: { type: 'string', format: 'date-time' },
  },
} as const;

export const evidencePageSchema = {
  type: 'object',
  required: ['events', 'next_cursor'],
  additionalProperties: false,
  properties: {
    events: { type: 'array', items: evidenceEventSchema, description: 'Newest imports first.' },
    next_cursor: { type: ['string', 'null'], description: 'Where the next page starts; null after the last.' },
  },
} as const;

export const addressEvidenceSchema = {
  type: 'object',
  required: ['email', 'events', 'decision'],
  additionalProperties: false,
  properties: {
    email: { type: 'string' },
    events: { type: 'array', items: evidenceEventSchema, description: 'Newest first.' },
    decision: {
      type: ['object', 'null'],
      description: 'What the events within the evidence window make of a verification of the address; null when they decide nothing.',
      required: ['result', 'reasonCode', 'kind', 'at', 'source'],
      additionalProperties: false,
      properties: {
        result: { type: 'string', enum: ['invalid', 'valid'], description: '`valid` only where the probe proves nothing (catch-all, accept-unproven, 252).' },
        reasonCode: { type: 'string', enum: ['bounced', 'delivered'] },
        kind: { type: 'string', enum: ['bounce', 'delivery'] },
        at: { type: 'string', format: 'date-time' },
        source: { type: 'string' },
      },
    },
  },
} as const;

export const evidenceDeletedSchema = {
  type: 'object',
  required: ['deleted'],
  additionalProperties: false,
  properties: { deleted: { type: 'integer' } },
} as const;

export type EvidenceImport = FromSchema<typeof evidenceImportSchema>;
export type EvidenceEventInfo = FromSchema<typeof evidenceEventSchema>;
export type EvidencePageInfo = FromSchema<typeof evidencePageSchema>;
export type AddressEvidence = FromSchema<typeof addressEvidenceSchema>;
