import { createdTokenSchema, createTokenRequestSchema, tokenListSchema } from '../../wire/contract.js';
import { errorResponses } from './problem.js';

export const createTokenSchema = {
  summary: 'Create an API token (`mv_…`), with the scopes it may use and when it expires; the secret is shown only in this response',
  body: createTokenRequestSchema,
  response: {
    201: createdTokenSchema,
    ...errorResponses('invalid_request', 'beyond_token_grant', 'payload_too_large', 'unsupported_media_type'),
  },
} as const;

export const listTokensSchema = {
  summary: 'List your API tokens not revoked, expired ones included, with their scopes and expiry (never their secrets)',
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
