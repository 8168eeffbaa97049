import { explainedResultSchema, explainProperty, freshProperty, verificationResultSchema } from '../../wire/contract.js';
import { errorResponses } from './problem.js';

/** Both POST routes accept a retry key; a repeat within 24 h answers as the first call did. */
export { verificationResultSchema };

export const idempotencyHeadersSchema = {
  type: 'object',
  properties: {
    'idempotency-key': { type: 'string', minLength: 1, maxLength: 255 },
  },
} as const;

export const verifySchema = {
  summary: 'Verify one address (costs 1 token)',
  headers: idempotencyHeadersSchema,
  body: {
    type: 'object',
    required: ['email'],
    additionalProperties: false,
    properties: { email: { type: 'string', description: 'The address to verify.' }, fresh: freshProperty, explain: explainProperty },
  },
  response: {
    200: explainedResultSchema,
    ...errorResponses('invalid_request', 'insufficient_tokens', 'idempotency_conflict', 'payload_too_large', 'unsupported_media_type', 'internal'),
  },
} as const;
