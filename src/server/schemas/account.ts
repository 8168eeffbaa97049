import { accountBodySchema as accountSchemaBody } from '../../wire/contract.js';

export const accountSchema = {
  summary: 'Your account: balance and rate limit',
  response: {
    200: accountSchemaBody,
  },
} as const;
