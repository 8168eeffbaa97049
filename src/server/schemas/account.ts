import { accountBodySchema as accountSchemaBody } from '../../wire/contract.js';

export const accountSchema = {
  summary: 'Your account: balance and rate limit, and what the token sent may do (any token may ask)',
  response: {
    200: accountSchemaBody,
  },
} as const;
