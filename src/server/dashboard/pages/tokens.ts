import type { FastifyInstance } from 'fastify';
import { generateApiToken, hashApiToken } from '../../auth/api-tokens.js';
import { ProblemError } from '../../errors.js';
import { createTokenSchema } from '../../schemas/tokens.js';
import type { DashboardConfig } from '../config.js';
import { renderPage } from '../render.js';
import { keepForNextPage, takeFromLastPage } from '../shown-once.js';
import { signedIn } from '../signed-in.js';

const createSchema = {
  body: {
    type: 'object',
    required: ['name'],
    // The API's own rule for a token name.
    properties: { name: createTokenSchema.body.properties.name, _csrf: { type: 'string' } },
  },
};

const revokeSchema = {
  params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } },
};

/** Where a new token waits, sealed, for the page after the redirect (see shown-once.ts). */
const NEW_TOKEN = { cookie: 'mv_new_token', path: '/tokens' };

export function tokenPages(app: FastifyInstance, { store, authenticator }: DashboardConfig): void {
  // The page after creating: the new secret is shown this once (the cookie that carried it is
  // cleared in the same answer), so a reload shows the list alone and creates nothing.
  app.get('/tokens', async (request, reply) => {
    const { user } = signedIn(request);
    const created = takeFromLastPage<{ name: string; token: string }>(request, reply, NEW_TOKEN);
    const tokens = await store.tokens.listApiTokens(user.id);
    return renderPage(request, reply, 'tokens', { title: 'API tokens', tokens, created });
  });

  // Post, redirect, get: the answer to the form is a redirect, so that reloading the page that
  // follows cannot post it again (a second token); only the token's hash is kept.
  app.post<{ Body: { name: string } }>('/tokens', { schema: createSchema }, async (request, reply) => {
    const name = request.body.name.trim();
    const token = generateApiToken();
    await store.tokens.createApiToken(signedIn(request).user.id, name, hashApiToken(token));
    keepForNextPage(request, reply, NEW_TOKEN, { name, token });
    return reply.redirect('/tokens', 303);
  });

  app.post<{ Params: { id: string } }>('/tokens/:id/revoke', { schema: revokeSchema }, async (request, reply) => {
    if (!(await store.tokens.revokeApiToken(signedIn(request).user.id, request.params.id))) {
      throw new ProblemError('not_found', 'No such token: it may have been revoked already.');
    }
    authenticator.forgetToken(request.params.id);
    return reply.redirect('/tokens', 303);
  });
}
