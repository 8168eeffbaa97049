import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { generateApiToken, hashApiToken } from '../../auth/api-tokens.js';
import { ProblemError } from '../../errors.js';
import { createTokenSchema } from '../../schemas/tokens.js';
import type { DashboardConfig } from '../config.js';
import { renderPage } from '../render.js';
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

export function tokenPages(app: FastifyInstance, { store, authenticator }: DashboardConfig): void {
  async function tokensPage(request: FastifyRequest, reply: FastifyReply, created?: { name: string; token: string }) {
    const tokens = await store.tokens.listApiTokens(signedIn(request).user.id);
    return renderPage(request, reply, 'tokens', { title: 'API tokens', tokens, created: created ?? null });
  }

  app.get('/tokens', (request, reply) => tokensPage(request, reply));

  // The new secret is shown on the answer to this post and never again (only its hash is kept):
  // the page is not cached (no-store) and reloading it shows the list without it.
  app.post<{ Body: { name: string } }>('/tokens', { schema: createSchema }, async (request, reply) => {
    const name = request.body.name.trim();
    const token = generateApiToken();
    await store.tokens.createApiToken(signedIn(request).user.id, name, hashApiToken(token));
    return tokensPage(request, reply, { name, token });
  });

  app.post<{ Params: { id: string } }>('/tokens/:id/revoke', { schema: revokeSchema }, async (request, reply) => {
    if (!(await store.tokens.revokeApiToken(signedIn(request).user.id, request.params.id))) {
      throw new ProblemError('not_found', 'No such token: it may have been revoked already.');
    }
    authenticator.forgetToken(request.params.id);
    return reply.redirect('/tokens', 303);
  });
}
