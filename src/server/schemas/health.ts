export const healthSchema = {
  summary: 'Liveness: answers once the service is ready; details say whether this node can verify now',
  response: {
    200: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: {
        status: { type: 'string', enum: ['ok'] },
        details: {
          type: 'object',
          description:
            "Whether this node can verify now: its outbound SMTP is not confirmed blocked and its resolver tells the truth. Which hosts and why are the operator's (log, metrics, doctor), never said here.",
          required: ['canVerify'],
          additionalProperties: false,
          properties: { canVerify: { type: 'boolean' } },
        },
      },
    },
  },
} as const;

export const readySchema = {
  summary:
    'Readiness: 200 while the store answers and this node can verify; 503 problem+json (store_unavailable, or cannot_verify while its port 25 or resolver fails) otherwise',
  response: {
    200: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: { status: { type: 'string', enum: ['ready'] } },
    },
  },
} as const;
