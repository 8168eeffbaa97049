import { addressEvidenceSchema, evidenceDeletedSchema, evidenceImportSchema, evidencePageSchema, MAX_EVIDENCE_PAGE } from '../../wire/evidence.js';
import { errorResponses } from './problem.js';

// The body of POST /v1/evidence is JSON or a raw message or mbox, so it is checked in the route
// (routes/evidence.ts) rather than by a schema here.

export const importEvidenceSchema = {
  summary: "Import evidence: JSON events, a raw message (message/rfc822) or an mbox (application/mbox) of the account's own mail",
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { source: { type: 'string', minLength: 1, maxLength: 100, description: "The source of a raw body's events (default `dsn`)." } },
  },
  response: {
    200: evidenceImportSchema,
    ...errorResponses('invalid_request', 'payload_too_large', 'unsupported_media_type'),
  },
} as const;

export const readEvidenceSchema = {
  summary: "Read the account's evidence: one address's events and what they decide, or a page of all events",
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      email: { type: 'string', minLength: 1, maxLength: 320 },
      limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: `Events per page, 1 to ${MAX_EVIDENCE_PAGE} (default 100).` },
      cursor: { type: 'string', pattern: '^[0-9]{1,16}$' },
    },
  },
  response: {
    200: { anyOf: [addressEvidenceSchema, evidencePageSchema] },
    ...errorResponses('invalid_request'),
  },
} as const;

export const deleteEvidenceSchema = {
  summary: "Delete the account's evidence: all, one address's (`?email=`) or one source's (`?source=`)",
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { email: { type: 'string', minLength: 1, maxLength: 320 }, source: { type: 'string', minLength: 1, maxLength: 100 } },
  },
  response: {
    200: evidenceDeletedSchema,
    ...errorResponses('invalid_request'),
  },
} as const;
