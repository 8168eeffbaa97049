import { errorResponses } from './problem.js';

const tokenFields = {
  id: { type: 'string' },
  name: { type: 'string' },
  createdAt: { type: 'string', format: 'date-time' },
} as const;

export const createTokenSchema = {
  summary: 'Create an API token (`mv_…`); the secret is shown only in this response',
  body: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { name: { type: 'string', minLength: 1, maxLength: 200 } },
  },
  response: {
    201: {
      type: 'object',
      required: ['id', 'name', 'token', 'createdAt'],
      properties: { ...tokenFields, token: { type: 'string' } },
    },
    ...errorResponses('invalid_request', 'payload_too_large', 'unsupported_media_type'),
  },
} as const;

export const listTokensSchema = {
  summary: 'List your live API tokens (never their secrets)',
  response: {
    200: {
      type: 'object',
      required: ['tokens'],
      properties: {
        tokens: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'name', 'createdAt', 'lastUsedAt'],
            properties: { ...tokenFields, lastUsedAt: { type: ['string', 'null'], format: 'date-time' } },
          },
        },
      },
    },
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
