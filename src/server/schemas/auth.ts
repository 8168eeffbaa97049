import { loginRequestSchema, loginResponseSchema } from '../../wire/contract.js';
import { errorResponses } from './problem.js';

export const loginSchema = {
  summary: 'Log in with email and password for a JWT valid 1 hour',
  body: loginRequestSchema,
  response: {
    200: loginResponseSchema,
    ...errorResponses('invalid_request', 'unauthorized', 'payload_too_large', 'unsupported_media_type', 'rate_limited'),
  },
} as const;
