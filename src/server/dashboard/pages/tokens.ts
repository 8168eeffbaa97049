import type { FastifyInstance } from 'fastify';
import { generateApiToken, hashApiToken } from '../../auth/api-tokens.js';
import { ProblemError } from '../../errors.js';
import { createTokenSchema } from '../../schemas/tokens.js';
import type { DashboardConfig } from '../config.js';
import { renderPage } from '../render.js';
import { seal, unseal } from '../sealed.js';
import { cookieValue, setCookie } from '../sessions.js';
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

/** Where a new token waits, sealed, for the page after the redirect (see sealed.ts); two minutes at most. */
const NEW_TOKEN_COOKIE = 'mv_new_token';
const NEW_TOKEN_SECONDS = 120;

export function tokenPages(app: FastifyInstance, { store, authenticator }: DashboardConfig): void {
  // The page after creating: the new secret is shown this once (the cookie that carried it is
  // cleared in the same answer), so a reload shows the list alone and creates nothing.
  app.get('/tokens', async (request, reply) => {
    const { user, session } = signedIn(request);
    const sealed = cookieValue(request, NEW_TOKEN_COOKIE);
    if (sealed !== undefined) setCookie(request, reply, { name: NEW_TOKEN_COOKIE, value: '', path: '/tokens', maxAge: 0 });
    const opened = sealed === undefined ? undefined : unseal(session.csrfSecret, sealed);
    const created = opened === undefined ? null : (JSON.parse(opened) as { name: string; token: string });
    const tokens = await store.tokens.listApiTokens(user.id);
    return renderPage(request, reply, 'tokens', { title: 'API tokens', tokens, created });
  });

  // Post, redirect, get: the answer to the form is a redirect, so that reloading the page that
  // follows cannot post it again (a second token); only the token's hash is kept.
  app.post<{ Body: { name: string } }>('/tokens', { schema: createSchema }, async (request, reply) => {
    const { user, session } = signedIn(request);
    const name = request.body.name.trim();
    const token = generateApiToken();
    await store.tokens.createApiToken(user.id, name, hashApiToken(token));
    const value = seal(session.csrfSecret, JSON.stringify({ name, token }));
    setCookie(request, reply, { name: NEW_TOKEN_COOKIE, value, path: '/tokens', maxAge: NEW_TOKEN_SECONDS, sameSite: 'strict' });
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
