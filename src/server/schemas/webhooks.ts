import { createdWebhookSchema, createWebhookRequestSchema, webhookListSchema, webhookTestSchema } from '../../wire/contract.js';
import { errorResponses } from './problem.js';

const webhookParamsSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, description: "The endpoint's `id`." } },
} as const;

export const createWebhookSchema = {
  summary: 'Register a webhook endpoint; the signing secret (`whsec_…`) is shown only in this response',
  body: createWebhookRequestSchema,
  response: {
    201: createdWebhookSchema,
    ...errorResponses('invalid_request', 'webhook_endpoint_limit', 'payload_too_large', 'unsupported_media_type'),
  },
} as const;

export const listWebhooksSchema = {
  summary: 'List your webhook endpoints with their latest delivery attempts (never their secrets)',
  response: {
    200: webhookListSchema,
  },
} as const;

export const removeWebhookSchema = {
  summary: 'Remove a webhook endpoint: nothing more is sent to it',
  params: webhookParamsSchema,
  response: {
    204: { type: 'null', description: 'Removed.' },
    ...errorResponses('not_found'),
  },
} as const;

export const testWebhookSchema = {
  summary: 'Send a `webhook.test` event to an endpoint (delivered, and retried, as any event)',
  params: webhookParamsSchema,
  response: {
    202: webhookTestSchema,
    ...errorResponses('invalid_request', 'not_found', 'webhook_test_limit'),
  },
} as const;
