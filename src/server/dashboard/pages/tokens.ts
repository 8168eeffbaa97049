import type { FastifyInstance } from 'fastify';
import { generateApiToken, hashApiToken } from '../../auth/api-tokens.js';
import { grantFrom } from '../../auth/token-grant.js';
import { ProblemError } from '../../http/errors.js';
import { API_SCOPES } from '../../../wire/contract.js';
import { createTokenSchema } from '../../schemas/tokens.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { keepForNextPage, takeFromLastPage } from '../common/shown-once.js';
import { signedIn } from '../common/signed-in.js';

/** The form's expiry choices, in days; "never" is the empty value. */
const EXPIRY_DAYS = [7, 30, 90, 365] as const;

const createSchema = {
  body: {
    type: 'object',
    required: ['name'],
    // The API's own rules for a token name and its scopes (checked again by grantFrom).
    properties: {
      name: createTokenSchema.body.properties.name,
      scopes: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: API_SCOPES.length }] },
      expires: { type: 'string', enum: ['', ...EXPIRY_DAYS.map(String)] },
      test: { type: 'string', enum: ['on'] },
      _csrf: { type: 'string' },
    },
  },
};

interface CreateForm {
  name: string;
  /** One checkbox ticked is a string, several an array, none absent (which the grant refuses). */
  scopes?: string | string[];
  expires?: string;
  /** The "Test token" checkbox: present only when ticked. */
  test?: 'on';
}

const revokeSchema = {
  params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } },
};

/** Where a new token waits, sealed, for the page after the redirect (see common/shown-once.ts). */
const NEW_TOKEN = { cookie: 'mv_new_token', path: '/tokens' };

export function tokenPages(app: FastifyInstance, { store, authenticator }: DashboardConfig): void {
  // The page after creating: the new secret is shown this once (the cookie that carried it is
  // cleared in the same answer), so a reload shows the list alone and creates nothing.
  app.get('/tokens', async (request, reply) => {
    const { user } = signedIn(request);
    const created = takeFromLastPage<{ name: string; token: string }>(request, reply, NEW_TOKEN);
    const tokens = await store.tokens.listApiTokens(user.id);
    return renderPage(request, reply, 'tokens', { title: 'API tokens', tokens, created, scopes: API_SCOPES, expiryDays: EXPIRY_DAYS, now: Date.now() });
  });

  // Post, redirect, get: the answer to the form is a redirect, so that reloading the page that
  // follows cannot post it again (a second token); only the token's hash is kept.
  app.post<{ Body: CreateForm }>('/tokens', { schema: createSchema }, async (request, reply) => {
    const name = request.body.name.trim();
    const { scopes = [], expires = '' } = request.body;
    const test = request.body.test === 'on';
    const grant = grantFrom({ scopes: [scopes].flat(), ...(expires === '' ? {} : { expiresIn: Number(expires) * 86_400 }), test });
    const token = generateApiToken(grant);
    await store.tokens.createApiToken(signedIn(request).user.id, name, hashApiToken(token), grant);
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
