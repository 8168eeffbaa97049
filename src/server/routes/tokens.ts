import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './app-config.js';
import { generateApiToken, hashApiToken } from '../auth/api-tokens.js';
import type { Authenticator } from '../auth/authenticate.js';
import { currentAccess, currentUser } from '../auth/guard.js';
import { grantFrom, grantWithin } from '../auth/token-grant.js';
import { ProblemError } from '../http/errors.js';
import { createTokenSchema, listTokensSchema, revokeTokenSchema } from '../schemas/tokens.js';

export function tokenRoutes(scope: FastifyInstance, { store }: AppConfig, authenticator: Authenticator): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/tokens', { schema: createTokenSchema }, async (request, reply) => {
    // A login JWT (like the dashboard's session) may grant everything; an API token at most its own grant.
    const access = currentAccess(request);
    const grant = access.kind === 'api' ? grantWithin(request.body, access) : grantFrom(request.body);
    const token = generateApiToken(grant);
    const record = await store.tokens.createApiToken(currentUser(request).id, request.body.name, hashApiToken(token), grant);
    // The only time the secret is ever shown: only its hash is kept.
    const { id, name, createdAt, scopes, expiresAt, test } = record;
    return reply.code(201).send({ id, name, token, createdAt, scopes: [...scopes], expiresAt, test });
  });

  app.get('/v1/tokens', { schema: listTokensSchema }, async (request) => ({
    tokens: (await store.tokens.listApiTokens(currentUser(request).id)).map(({ id, name, createdAt, lastUsedAt, scopes, expiresAt, test }) => ({
      id,
      name,
      createdAt,
      lastUsedAt,
      scopes: [...scopes],
      expiresAt,
      test,
    })),
  }));

  app.delete('/v1/tokens/:id', { schema: revokeTokenSchema }, async (request, reply) => {
    if (!(await store.tokens.revokeApiToken(currentUser(request).id, request.params.id))) {
      throw new ProblemError('not_found', `No live token ${request.params.id}.`);
    }
    authenticator.forgetToken(request.params.id);
    return reply.code(204).send(null);
  });
}
