export const healthSchema = {
  summary: 'Liveness: answers once the service is ready',
  response: {
    200: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['ok'] } },
    },
  },
} as const;
