import { createdTokenSchema, tokenListSchema } from '../../wire/contract.js';
import { errorResponses } from './problem.js';

export const createTokenSchema = {
  summary: 'Create an API token (`mv_…`); the secret is shown only in this response',
  body: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { name: { type: 'string', minLength: 1, maxLength: 200 } },
  },
  response: {
    201: createdTokenSchema,
    ...errorResponses('invalid_request', 'payload_too_large', 'unsupported_media_type'),
  },
} as const;

export const listTokensSchema = {
  summary: 'List your live API tokens (never their secrets)',
  response: {
    200: tokenListSchema,
  },
} as const;

export const revokeTokenSchema = {
  summary: 'Revoke an API token',
  params: {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string', minLength: 1 } },
  },
  response: {
    204: { type: 'null', description: 'Revoked.' },
    ...errorResponses('not_found'),
  },
} as const;
