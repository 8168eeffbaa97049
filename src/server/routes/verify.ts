import type { FastifyInstance } from 'fastify';
import type { VerificationResult } from '../../engine/types.js';
import type { AppConfig } from '../app.js';
import { currentUser } from '../auth/guard.js';
import { insufficientTokens, ProblemError } from '../errors.js';
import { createIdempotencyGate, idempotencyScope, sendRecorded } from '../idempotency.js';
import { verifySchema } from '../schemas/verification.js';

const ROUTE = 'POST /v1/verify';
const COST = 1;

export function verifyRoutes(app: FastifyInstance, { store, verifier }: AppConfig): void {
  const once = createIdempotencyGate(store);

  app.post<{ Body: { email: string } }>('/v1/verify', { schema: verifySchema }, async (request, reply) => {
    const user = currentUser(request);
    // The charge comes first and is atomic, so concurrent requests can never overspend; an engine
    // fault gives the token back.
    const verify = async (): Promise<VerificationResult> => {
      const charged = store.charge(user.id, COST, 'verify');
      if (!charged.ok) throw insufficientTokens(charged);
      try {
        return await verifier.verify(request.body.email);
      } catch (error) {
        store.refund(user.id, COST);
        request.log.error({ err: error }, 'engine failed; token refunded');
        throw new ProblemError('internal', 'The verification failed on our side; the token was refunded.');
      }
    };
    const scope = idempotencyScope(request, user.id, ROUTE);
    if (!scope) return verify();
    const outcome = await once(scope, verify);
    return 'recorded' in outcome ? sendRecorded(reply, outcome.recorded) : outcome.value;
  });
}
