import { REASON_CODE_NAMES } from '../../engine/reason-codes.js';
import { BEYOND_FORMAT, VERDICTS } from '../../engine/types.js';
import { errorResponses } from './problem.js';

/** The interface's `checks` object (docs/api.md "Resources"), field for field. */
export const checksSchema = {
  type: 'object',
  required: ['format', 'domainExists', 'hasMx', 'domainReachable', 'smtpStatus', 'isDisposable', 'isRole', 'isBlacklisted', 'isKnownProvider', 'isCatchAll'],
  additionalProperties: false,
  properties: {
    format: { type: 'boolean' },
    domainExists: { type: 'boolean' },
    hasMx: { type: 'boolean' },
    domainReachable: { type: 'boolean' },
    smtpStatus: { type: 'string', enum: ['valid', 'invalid', 'unknown'] },
    isDisposable: { type: 'boolean' },
    isRole: { type: 'boolean' },
    isBlacklisted: { type: 'boolean' },
    isKnownProvider: { type: 'boolean' },
    isCatchAll: { type: 'boolean' },
  },
} as const;

/**
 * The verification result (docs/api.md "Resources"): single responses and every entry of a bulk job's results. The
 * contract's four fields, and additional ones: `reasonCode` always, `notEstablished` and
 * `suggestion` only when there are.
 */
export const verificationResultSchema = {
  type: 'object',
  required: ['email', 'result', 'checks', 'reason', 'reasonCode'],
  additionalProperties: false,
  properties: {
    email: { type: 'string' },
    result: { type: 'string', enum: [...VERDICTS] },
    checks: checksSchema,
    reason: { type: 'string' },
    reasonCode: { type: 'string', enum: REASON_CODE_NAMES, description: 'Why, as a stable code (the README lists them); `reason` says it in words.' },
    notEstablished: {
      type: 'array',
      items: { type: 'string', enum: ['format', ...BEYOND_FORMAT] },
      description: 'Checks whose `false` is no finding: they could not be established (DNS failed, the domain was not looked up, the probe got no answer).',
    },
    suggestion: { type: 'string', description: 'The address with a likely typo in its domain corrected ("did you mean").' },
  },
} as const;

/** Both POST routes accept a retry key; a repeat within 24 h answers as the first call did. */
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
    properties: { email: { type: 'string', description: 'The address to verify.' } },
  },
  response: {
    200: verificationResultSchema,
    ...errorResponses('invalid_request', 'insufficient_tokens', 'idempotency_conflict', 'payload_too_large', 'unsupported_media_type', 'internal'),
  },
} as const;
