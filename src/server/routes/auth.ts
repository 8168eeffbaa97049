import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../app-config.js';
import type { CredentialCheck } from '../auth/credentials.js';
import { loginSchema } from '../schemas/auth.js';

interface LoginBody {
  email: string;
  password: string;
}

export function authRoutes(app: FastifyInstance, { jwt }: AppConfig, checkCredentials: CredentialCheck): void {
  app.post<{ Body: LoginBody }>('/v1/auth/login', { schema: loginSchema }, async (request, reply) => {
    const user = await checkCredentials(request.body.email, request.body.password, request.ip, reply);
    const { token, expiresAt } = await jwt.issue(user.id);
    return { token, tokenType: 'Bearer' as const, expiresAt: expiresAt.toISOString() };
  });
}
