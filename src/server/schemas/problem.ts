import { problemStatus, type ProblemCode } from '../http/errors.js';

/** The problem+json body of every error response (docs/api.md). */
export const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    balance: { type: 'integer', description: 'With 402: the balance now.' },
    required: { type: 'integer', description: 'With 402: the tokens the request needed.' },
    scope: { type: 'string', description: 'With 403 `insufficient_scope`: the scope the route needs, which the token lacks.' },
    beyondGrant: {
      type: 'array',
      items: { type: 'string' },
      description: "With 403 `beyond_token_grant`: the scopes asked beyond the creating token's, and `expiry` when the new token would outlive it.",
    },
  },
} as const;

/** Response schemas for the errors a route can answer with, keyed by status as fastify expects. */
export function errorResponses(...codes: ProblemCode[]): Record<number, typeof problemSchema> {
  return Object.fromEntries(codes.map((code) => [problemStatus(code), problemSchema]));
}
