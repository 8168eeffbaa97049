import type { FastifyInstance } from 'fastify';
import { currentUser } from '../auth/guard.js';
import { accountSchema } from '../schemas/account.js';

export function accountRoutes(app: FastifyInstance): void {
  app.get('/v1/account', { schema: accountSchema }, async (request) => {
    const user = currentUser(request);
    return {
      email: user.email,
      balance: user.balance,
      rateLimit: { limit: user.rateLimit, windowSeconds: user.rateWindowSeconds },
    };
  });
}
