import { errorResponses } from './problem.js';

export const loginSchema = {
  summary: 'Log in with email and password for a JWT valid 1 hour',
  body: {
    type: 'object',
    required: ['email', 'password'],
    additionalProperties: false,
    properties: { email: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1 } },
  },
  response: {
    200: {
      type: 'object',
      required: ['token', 'tokenType', 'expiresAt'],
      properties: {
        token: { type: 'string' },
        tokenType: { type: 'string', enum: ['Bearer'] },
        expiresAt: { type: 'string', format: 'date-time' },
      },
    },
    ...errorResponses('invalid_request', 'unauthorized', 'payload_too_large', 'unsupported_media_type', 'rate_limited'),
  },
} as const;
