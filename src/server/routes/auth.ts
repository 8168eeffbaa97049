import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../app.js';
import { countLoginAttempt } from '../auth/login-limit.js';
import { ProblemError } from '../errors.js';
import { hashPassword, verifyPassword } from '../passwords.js';
import { loginSchema } from '../schemas/auth.js';

interface LoginBody {
  email: string;
  password: string;
}

export function authRoutes(app: FastifyInstance, { store, jwt }: AppConfig): void {
  // An unknown address is checked against a throwaway hash, so that the answer takes as long as
  // for a wrong password and does not tell which addresses have accounts.
  let decoyHash: Promise<string> | undefined;
  const decoy = () => (decoyHash ??= hashPassword(randomBytes(16).toString('hex')));

  app.post<{ Body: LoginBody }>('/v1/auth/login', { schema: loginSchema }, async (request, reply) => {
    const email = request.body.email.trim();
    await countLoginAttempt(store, email, request.ip, reply);
    const user = await store.findUserByEmail(email);
    const valid = await verifyPassword(request.body.password, user?.passwordHash ?? (await decoy()));
    if (!user || user.passwordHash === null || !valid) throw new ProblemError('unauthorized', 'Wrong email or password.');
    const { token, expiresAt } = await jwt.issue(user.id);
    return { token, tokenType: 'Bearer' as const, expiresAt: expiresAt.toISOString() };
  });
}
