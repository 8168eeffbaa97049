import type { FastifyInstance } from 'fastify';
import { createWebhookRequestSchema } from '../../../wire/contract.js';
import { registerEndpoint, removeEndpoint, sendTestEvent } from '../../webhooks/endpoints.js';
import { DEFAULT_WEBHOOK_POLICY } from '../../webhooks/policy.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { keepForNextPage, takeFromLastPage } from '../common/shown-once.js';
import { signedIn } from '../common/signed-in.js';

const addSchema = {
  body: {
    type: 'object',
    required: ['url'],
    // The API's own rules for the fields.
    properties: { ...createWebhookRequestSchema.properties, _csrf: { type: 'string' } },
  },
};

const endpointSchema = {
  params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } },
};

/** Where a new endpoint's secret waits, sealed, for the page after the redirect (see common/shown-once.ts). */
const NEW_SECRET = { cookie: 'mv_new_webhook', path: '/webhooks' };

/** The Webhooks page: add an endpoint (its secret shown once), send it a test event, remove it, and see the last attempts. */
export function webhookPages(app: FastifyInstance, { store, webhooks: policy = DEFAULT_WEBHOOK_POLICY }: DashboardConfig): void {
  app.get('/webhooks', async (request, reply) => {
    const created = takeFromLastPage<{ url: string; secret: string }>(request, reply, NEW_SECRET);
    const sent = (request.query as { sent?: string }).sent ?? null;
    const endpoints = await store.webhooks.listEndpoints(signedIn(request).user.id);
    return renderPage(request, reply, 'webhooks', { title: 'Webhooks', endpoints, created, sent });
  });

  // Post, redirect, get, as for tokens: a reload of the page that follows adds nothing.
  app.post<{ Body: { url: string; description?: string } }>('/webhooks', { schema: addSchema }, async (request, reply) => {
    const endpoint = await registerEndpoint(store.webhooks, signedIn(request).user.id, request.body, policy);
    keepForNextPage(request, reply, NEW_SECRET, { url: endpoint.url, secret: endpoint.secret });
    return reply.redirect('/webhooks', 303);
  });

  app.post<{ Params: { id: string } }>('/webhooks/:id/test', { schema: endpointSchema }, async (request, reply) => {
    const eventId = await sendTestEvent(store.webhooks, signedIn(request).user.id, request.params.id, policy);
    return reply.redirect(`/webhooks?sent=${encodeURIComponent(eventId)}`, 303);
  });

  app.post<{ Params: { id: string } }>('/webhooks/:id/remove', { schema: endpointSchema }, async (request, reply) => {
    await removeEndpoint(store.webhooks, signedIn(request).user.id, request.params.id);
    return reply.redirect('/webhooks', 303);
  });
}
