import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './app-config.js';
import type { CredentialCheck } from '../auth/credentials.js';
import { loginSchema } from '../schemas/auth.js';

export function authRoutes(scope: FastifyInstance, { jwt }: AppConfig, checkCredentials: CredentialCheck): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/auth/login', { schema: loginSchema }, async (request) => {
    const user = await checkCredentials(request.body.email, request.body.password, request.ip);
    const { token, expiresAt } = await jwt.issue({ userId: user.id, sessionEpoch: user.sessionEpoch });
    return { token, tokenType: 'Bearer' as const, expiresAt: expiresAt.toISOString() };
  });
}
