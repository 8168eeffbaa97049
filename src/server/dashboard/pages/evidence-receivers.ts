import type { FastifyInstance } from 'fastify';
import { createReceiverRequestSchema, type CreateReceiverRequest } from '../../../wire/evidence-receivers.js';
import { ProblemError } from '../../http/errors.js';
import { createReceiver, receiverUrl } from '../../receivers/manage.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { keepForNextPage, takeFromLastPage } from '../common/shown-once.js';
import { signedIn } from '../common/signed-in.js';

const PATH = '/evidence/receivers';

const createSchema = {
  body: {
    type: 'object',
    required: ['kind'],
    // The API's own rules for the fields; an empty optional field of the form is taken as not given.
    properties: { ...createReceiverRequestSchema.properties, topicArn: { type: 'string', maxLength: 300 }, _csrf: { type: 'string' } },
  },
};

const receiverSchema = {
  params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } },
};

/** Where a new receiver's URL waits, sealed, for the page after the redirect (see common/shown-once.ts). */
const NEW_URL = { cookie: 'mv_new_receiver', path: PATH };

/** The form's fields as the API takes them: blank ones left out. */
function requestOf({ kind, publicKey, topicArn }: CreateReceiverRequest): CreateReceiverRequest {
  const request: CreateReceiverRequest = { kind };
  if (publicKey?.trim()) request.publicKey = publicKey.trim();
  if (topicArn?.trim()) request.topicArn = topicArn.trim();
  return request;
}

/** The Evidence receivers page (linked from the Evidence page): create one for SendGrid or SNS (its URL shown once), see when each last took events, delete one. */
export function evidenceReceiverPages(app: FastifyInstance, { store }: DashboardConfig): void {
  app.get(PATH, async (request, reply) => {
    const created = takeFromLastPage<{ kind: string; url: string }>(request, reply, NEW_URL);
    const receivers = await store.evidenceReceivers.listReceivers(signedIn(request).user.id);
    return renderPage(request, reply, 'evidence-receivers', { title: 'Evidence receivers', receivers, created });
  });

  // Post, redirect, get, as for webhooks: a reload of the page that follows creates nothing.
  app.post<{ Body: CreateReceiverRequest }>(PATH, { schema: createSchema }, async (request, reply) => {
    const { receiver, secret } = await createReceiver(store.evidenceReceivers, signedIn(request).user.id, requestOf(request.body));
    const url = receiverUrl(`${request.protocol}://${request.host}`, receiver.kind, secret);
    keepForNextPage(request, reply, NEW_URL, { kind: receiver.kind, url });
    return reply.redirect(PATH, 303);
  });

  app.post<{ Params: { id: string } }>(`${PATH}/:id/delete`, { schema: receiverSchema }, async (request, reply) => {
    if (!(await store.evidenceReceivers.removeReceiver(signedIn(request).user.id, request.params.id))) {
      throw new ProblemError('not_found', 'No evidence receiver of yours has this id.');
    }
    return reply.redirect(PATH, 303);
  });
}
