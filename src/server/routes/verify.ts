import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../app.js';
import { currentUser } from '../auth/guard.js';
import { insufficientTokens, ProblemError } from '../errors.js';
import { chargeOnce, idempotencyKey, sendRecorded } from '../idempotency.js';
import { verifySchema } from '../schemas/verification.js';

const ROUTE = 'POST /v1/verify';
const COST = 1;

export function verifyRoutes(app: FastifyInstance, { store, verifier }: AppConfig): void {
  app.post<{ Body: { email: string } }>('/v1/verify', { schema: verifySchema }, async (request, reply) => {
    const user = currentUser(request);
    const key = idempotencyKey(request, ROUTE);
    // The charge comes first and is atomic (with claiming the key, when there is one), so
    // concurrent requests can never overspend or pay twice; an engine fault gives the token back.
    if (key) {
      const charged = await chargeOnce(store, user.id, COST, key);
      if (charged.kind === 'recorded') return sendRecorded(reply, charged.record);
    } else {
      const charged = await store.charge(user.id, COST, 'verify');
      if (!charged.ok) throw insufficientTokens(charged);
    }
    let result;
    try {
      result = await verifier.verify(request.body.email, { priority: 'interactive' });
    } catch (error) {
      await store.refund(user.id, COST, null, key);
      request.log.error({ err: error }, 'engine failed; token refunded');
      throw new ProblemError('internal', 'The verification failed on our side; the token was refunded.');
    }
    if (key) await store.saveIdempotency({ userId: user.id, ...key, statusCode: 200, body: JSON.stringify(result) });
    return result;
  });
}
