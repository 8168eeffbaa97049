import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './app-config.js';
import { currentUser } from '../auth/guard.js';
import { ProblemError } from '../http/errors.js';
import { createReceiver, receiverUrl } from '../receivers/manage.js';
import { createReceiverSchema, listReceiversSchema, removeReceiverSchema } from '../schemas/evidence-receivers.js';

/** `/v1/evidence/receivers` (docs/api.md "Evidence receivers"): an account's receivers; the posts to them are evidence-hooks.ts's. */
export function evidenceReceiverRoutes(scope: FastifyInstance, { store }: AppConfig): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/evidence/receivers', { schema: createReceiverSchema }, async (request, reply) => {
    const { receiver, secret } = await createReceiver(store.evidenceReceivers, currentUser(request).id, request.body);
    // The only answer that holds the URL: the list cannot, as only the secret's hash is kept.
    const url = receiverUrl(`${request.protocol}://${request.host}`, receiver.kind, secret);
    return reply.code(201).send({ id: receiver.id, kind: receiver.kind, url, topicArn: receiver.topicArn, createdAt: receiver.createdAt });
  });

  app.get('/v1/evidence/receivers', { schema: listReceiversSchema }, async (request) => ({
    receivers: (await store.evidenceReceivers.listReceivers(currentUser(request).id)).map(
      ({ id, kind, topicArn, createdAt, publicKey, confirmedAt, lastEventAt }) => ({ id, kind, topicArn, createdAt, publicKey, confirmedAt, lastEventAt }),
    ),
  }));

  app.delete('/v1/evidence/receivers/:id', { schema: removeReceiverSchema }, async (request, reply) => {
    if (!(await store.evidenceReceivers.removeReceiver(currentUser(request).id, request.params.id))) {
      throw new ProblemError('not_found', 'No evidence receiver of yours has this id.');
    }
    return reply.code(204).send(null);
  });
}
