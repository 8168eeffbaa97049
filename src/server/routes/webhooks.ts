import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../app-config.js';
import { currentUser } from '../auth/guard.js';
import { ProblemError } from '../errors.js';
import { createWebhookSchema, listWebhooksSchema, removeWebhookSchema, testWebhookSchema } from '../schemas/webhooks.js';
import { checkDestination, DestinationRefused } from '../webhooks/destination.js';
import { testEvent } from '../webhooks/events.js';
import { newEndpointSecret } from '../webhooks/signing.js';

/** `/v1/webhooks` (docs/api.md "Webhooks"): an account's endpoints; the deliveries are the runners' (webhooks/deliverer.ts). */
export function webhookRoutes(scope: FastifyInstance, { store, allowPrivateNetworks = false }: AppConfig): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/webhooks', { schema: createWebhookSchema }, async (request, reply) => {
    const { url, description } = request.body;
    try {
      await checkDestination(url, allowPrivateNetworks);
    } catch (error) {
      if (error instanceof DestinationRefused) throw new ProblemError('invalid_request', error.message);
      throw error;
    }
    const endpoint = await store.webhooks.createEndpoint(currentUser(request).id, { url, description: description ?? null, secret: newEndpointSecret() });
    // The only answer that shows the secret; the list never does.
    return reply.code(201).send({ id: endpoint.id, url: endpoint.url, description: endpoint.description, secret: endpoint.secret, createdAt: endpoint.createdAt });
  });

  app.get('/v1/webhooks', { schema: listWebhooksSchema }, async (request) => ({
    webhooks: (await store.webhooks.listEndpoints(currentUser(request).id)).map((endpoint) => ({
      id: endpoint.id,
      url: endpoint.url,
      description: endpoint.description,
      createdAt: endpoint.createdAt,
      disabled: endpoint.disabledAt !== null,
      attempts: endpoint.attempts.map(({ eventId, attemptedAt, status, latencyMs, error }) => ({ eventId, at: attemptedAt, status, latencyMs, error })),
    })),
  }));

  app.delete('/v1/webhooks/:id', { schema: removeWebhookSchema }, async (request, reply) => {
    if (!(await store.webhooks.removeEndpoint(currentUser(request).id, request.params.id))) {
      throw new ProblemError('not_found', `No webhook endpoint ${request.params.id}.`);
    }
    return reply.code(204).send(null);
  });

  app.post('/v1/webhooks/:id/test', { schema: testWebhookSchema }, async (request, reply) => {
    const endpoint = await store.webhooks.findEndpoint(currentUser(request).id, request.params.id);
    if (!endpoint) throw new ProblemError('not_found', `No webhook endpoint ${request.params.id}.`);
    const event = testEvent(endpoint.id, new Date());
    await store.webhooks.enqueue(endpoint.id, event);
    return reply.code(202).send({ eventId: event.id });
  });
}
