const stateSchema = (states: readonly string[]) =>
  ({
    type: 'object',
    required: ['state'],
    additionalProperties: false,
    properties: { state: { type: 'string', enum: [...states] }, reason: { type: 'string' } },
  }) as const;

export const healthSchema = {
  summary: 'Liveness: answers once the service is ready; details say whether outbound SMTP and the resolver work',
  response: {
    200: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: {
        status: { type: 'string', enum: ['ok'] },
        details: {
          type: 'object',
          description: 'What the engine has found out about its network so far ("unknown" until it has tried).',
          required: ['port25', 'resolver'],
          additionalProperties: false,
          properties: {
            port25: stateSchema(['unknown', 'open', 'blocked']),
            resolver: stateSchema(['unknown', 'truthful', 'untruthful']),
          },
        },
      },
    },
  },
} as const;

export const readySchema = {
  summary: 'Readiness: 200 while the store answers and this node can verify; 503 problem+json (store_unavailable, or cannot_verify while its port 25 or resolver fails) otherwise',
  response: {
    200: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: { status: { type: 'string', enum: ['ready'] } },
    },
  },
} as const;
