import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { VERIFIER_CONDITIONS } from '../../engine/reason-codes.js';
import type { VerificationResult, Verifier } from '../../engine/types.js';
import type { AppConfig } from '../app-config.js';
import { currentUser } from '../auth/guard.js';
import { insufficientTokens, ProblemError } from '../errors.js';
import { chargeOnce, idempotencyKey, sendRecorded } from '../idempotency.js';
import { verifySchema } from '../schemas/verification.js';
import type { AccountStore, IdempotencyKey } from '../store/store.js';

const ROUTE = 'POST /v1/verify';
export const VERIFY_COST = 1;

/**
 * Verifies an address that has been paid for (VERIFY_COST, taken under `key` when there is one);
 * an engine fault gives the token back (and frees the key) and is answered as a 500. A result that
 * is `unknown` because of the service's own condition (VERIFIER_CONDITIONS) is answered and its
 * token given back: nobody pays for our network.
 */
export async function verifyPaid(
  { accounts, verifier, log }: { accounts: AccountStore; verifier: Verifier; log: FastifyBaseLogger },
  userId: number,
  email: string,
  key?: IdempotencyKey,
): Promise<VerificationResult> {
  try {
    // Someone is waiting for this answer: it goes ahead of bulk work in the engine.
    const result = await verifier.verify(email, { priority: 'interactive' });
    if (VERIFIER_CONDITIONS.has(result.reasonCode)) await accounts.refund(userId, VERIFY_COST, null);
    return result;
  } catch (error) {
    await accounts.refund(userId, VERIFY_COST, null, key);
    log.error({ err: error }, 'engine failed; token refunded');
    throw new ProblemError('internal', 'The verification failed on our side; the token was refunded.');
  }
}

/** Takes VERIFY_COST from the balance, or throws the 402. */
export async function chargeForVerify(accounts: AccountStore, userId: number): Promise<void> {
  const charged = await accounts.charge(userId, VERIFY_COST, 'verify');
  if (!charged.ok) throw insufficientTokens(charged);
}

export function verifyRoutes(scope: FastifyInstance, { store, verifier }: AppConfig): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/verify', { schema: verifySchema }, async (request, reply) => {
    const user = currentUser(request);
    const key = idempotencyKey(request, ROUTE);
    // The charge comes first and is atomic (with claiming the key, when there is one), so
    // concurrent requests can never overspend or pay twice; an engine fault gives the token back.
    if (key) {
      const charged = await chargeOnce(store.accounts, user.id, VERIFY_COST, key);
      if (charged.kind === 'recorded') return sendRecorded(reply, charged.record);
    } else {
      await chargeForVerify(store.accounts, user.id);
    }
    const result = await verifyPaid({ accounts: store.accounts, verifier, log: request.log }, user.id, request.body.email, key);
    if (key) await store.idempotency.saveIdempotency({ userId: user.id, ...key, statusCode: 200, body: JSON.stringify(result) });
    return result;
  });
}
