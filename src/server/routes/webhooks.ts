import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './app-config.js';
import { currentUser } from '../auth/guard.js';
import { createWebhookSchema, listWebhooksSchema, removeWebhookSchema, testWebhookSchema } from '../schemas/webhooks.js';
import { registerEndpoint, removeEndpoint, sendTestEvent } from '../webhooks/endpoints.js';
import { DEFAULT_WEBHOOK_POLICY } from '../webhooks/policy.js';

/** `/v1/webhooks` (docs/api.md "Webhooks"): an account's endpoints; the deliveries are the runners' (webhooks/deliverer.ts). */
export function webhookRoutes(scope: FastifyInstance, { store, webhooks: policy = DEFAULT_WEBHOOK_POLICY }: AppConfig): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/webhooks', { schema: createWebhookSchema }, async (request, reply) => {
    const endpoint = await registerEndpoint(store.webhooks, currentUser(request).id, request.body, policy);
    // The only answer that shows the secret; the list never does.
    return reply
      .code(201)
      .send({ id: endpoint.id, url: endpoint.url, description: endpoint.description, secret: endpoint.secret, createdAt: endpoint.createdAt });
  });

  app.get('/v1/webhooks', { schema: listWebhooksSchema }, async (request) => ({
    webhooks: (await store.webhooks.listEndpoints(currentUser(request).id)).map((endpoint) => ({
      id: endpoint.id,
      url: endpoint.url,
      description: endpoint.description,
      createdAt: endpoint.createdAt,
      disabled: endpoint.disabledAt !== null,
      disabledReason: endpoint.disabledAt === null ? null : endpoint.disabledReason,
      attempts: endpoint.attempts.map(({ eventId, attemptedAt, status, latencyMs, error }) => ({ eventId, at: attemptedAt, status, latencyMs, error })),
    })),
  }));

  app.delete('/v1/webhooks/:id', { schema: removeWebhookSchema }, async (request, reply) => {
    await removeEndpoint(store.webhooks, currentUser(request).id, request.params.id);
    return reply.code(204).send(null);
  });

  app.post('/v1/webhooks/:id/test', { schema: testWebhookSchema }, async (request, reply) => {
    return reply.code(202).send({ eventId: await sendTestEvent(store.webhooks, currentUser(request).id, request.params.id, policy) });
  });
}
