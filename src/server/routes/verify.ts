import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { VERIFIER_CONDITIONS } from '../../engine/reason-codes.js';
import type { VerificationResult } from '../../engine/types.js';
import type { AppConfig } from '../app-config.js';
import { currentUser } from '../auth/guard.js';
import { insufficientTokens, ProblemError } from '../errors.js';
import { chargeOnce, idempotencyKey, sendRecorded } from '../idempotency.js';
import type { ServiceVerifier } from '../result-reuse.js';
import { verifySchema } from '../schemas/verification.js';
import type { AccountStore, IdempotencyKey } from '../store/store.js';

const ROUTE = 'POST /v1/verify';
export const VERIFY_COST = 1;

/** What a paid single verification runs with. */
export interface PaidVerification {
  accounts: AccountStore;
  verifier: ServiceVerifier;
  log: FastifyBaseLogger;
  /** `--refund-unknown`: every `unknown` is given back, not only those our own network caused. */
  refundUnknown?: boolean;
}

/** Whether the token of this result goes back: nobody pays for our network, and with `refundUnknown` nobody pays for an unknown. */
export function refundable(result: VerificationResult, refundUnknown = false): boolean {
  return VERIFIER_CONDITIONS.has(result.reasonCode) || (refundUnknown && result.result === 'unknown');
}

/**
 * Verifies an address that has been paid for (VERIFY_COST, taken under `key` when there is one);
 * an engine fault gives the token back (and frees the key) and is answered as a 500. A result
 * that is `refundable` is answered and its token given back at once.
 */
export async function verifyPaid(
  { accounts, verifier, log, refundUnknown }: PaidVerification,
  userId: number,
  email: string,
  { key, fresh }: { key?: IdempotencyKey; fresh?: boolean } = {},
): Promise<VerificationResult> {
  try {
    // Someone is waiting for this answer: it goes ahead of bulk work in the engine.
    const result = await verifier.verify(email, { priority: 'interactive', owner: userId, fresh });
    if (refundable(result, refundUnknown)) await accounts.refund(userId, VERIFY_COST, null);
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

export function verifyRoutes(scope: FastifyInstance, { store, verifier, refundUnknown }: AppConfig): void {
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
    const result = await verifyPaid({ accounts: store.accounts, verifier, log: request.log, refundUnknown }, user.id, request.body.email, { key, fresh: request.body.fresh });
    if (key) await store.idempotency.saveIdempotency({ userId: user.id, ...key, statusCode: 200, body: JSON.stringify(result) });
    return result;
  });
}
