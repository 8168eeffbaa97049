export const accountSchema = {
  summary: 'Your account: balance and rate limit',
  response: {
    200: {
      type: 'object',
      required: ['email', 'balance', 'rateLimit'],
      properties: {
        email: { type: 'string' },
        balance: { type: 'integer' },
        rateLimit: {
          type: 'object',
          required: ['limit', 'windowSeconds'],
          properties: { limit: { type: 'integer' }, windowSeconds: { type: 'integer' } },
        },
      },
    },
  },
} as const;
