import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './app-config.js';
import { currentAccess, currentUser } from '../auth/guard.js';
import { ProblemError } from '../http/errors.js';
import { accountSchema } from '../schemas/account.js';

export function accountRoutes(app: FastifyInstance, { store, refundUnknown = false }: AppConfig): void {
  app.get('/v1/account', { schema: accountSchema }, async (request) => {
    // Read fresh, not from the authentication cache: the balance moves with every charge.
    const user = await store.accounts.findUserById(currentUser(request).id);
    if (user === undefined) throw new ProblemError('unauthorized', 'The account of this token no longer exists.');
    const { kind, tokenId, name, scopes, expiresAt, test } = currentAccess(request);
    return {
      email: user.email,
      balance: user.balance,
      refundUnknown,
      rateLimit: { limit: user.rateLimit, windowSeconds: user.rateWindowSeconds },
      token: { kind, id: tokenId, name, scopes: [...scopes], expiresAt, test },
    };
  });
}
