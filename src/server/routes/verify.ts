import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { VERIFIER_CONDITIONS } from '../../engine/core/reason-codes.js';
import type { VerificationResult } from '../../engine/core/types.js';
import type { AppConfig } from './app-config.js';
import { currentUser } from '../auth/guard.js';
import { insufficientTokens, ProblemError } from '../http/errors.js';
import { chargeOnce, idempotencyKey, sendRecorded } from '../http/idempotency.js';
import type { ServiceVerifier } from '../verifier/result-reuse.js';
import { verifySchema } from '../schemas/verification.js';
import { isTestCaller, sandboxVerify } from './sandbox.js';
import { StoreFault, type AccountStore, type IdempotencyKey, type IdempotencyStore, type KeyedEnd, type PaidCharge } from '../store/store.js';

const ROUTE = 'POST /v1/verify';
export const VERIFY_COST = 1;
/** A refund asked this often before its fault is the answer: it is keyed by its charge, so asking again never gives twice. */
const REFUND_ATTEMPTS = 3;
const REFUND_RETRY_MS = 250;

/** What a paid single verification runs with. */
export interface PaidVerification {
  accounts: AccountStore;
  /** Where a keyed request's response is recorded (when its charge is kept). */
  idempotency: Pick<IdempotencyStore, 'saveIdempotency'>;
  verifier: ServiceVerifier;
  log: FastifyBaseLogger;
  /** `--refund-unknown`: every `unknown` is given back, not only those our own network caused. */
  refundUnknown?: boolean;
}

/** Whether the token of this result goes back: nobody pays for our network, and with `refundUnknown` nobody pays for an unknown. */
export function refundable(result: VerificationResult, refundUnknown = false): boolean {
  return VERIFIER_CONDITIONS.has(result.reasonCode) || (refundUnknown && result.result === 'unknown');
}

/** Gives the charge back, asking again after a fault: the store refunds a charge once, however often asked. */
async function refundOnce(accounts: AccountStore, userId: number, charge: PaidCharge, end?: KeyedEnd): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await accounts.refund(userId, charge, end);
      return;
    } catch (error) {
      if (!(error instanceof StoreFault) || attempt >= REFUND_ATTEMPTS) throw error;
      await sleep(REFUND_RETRY_MS);
    }
  }
}

/**
 * Verifies an address that has been paid for (`charge`, taken under `key` when there is one) and
 * settles the request (docs/architecture.md "The result cache and refunds"): an engine fault gives
 * the charge back, frees the key and is answered as a 500; a `refundable` result gives the charge
 * back and records the response for the key in the refund's transaction, so a retry replays it and
 * never runs free; any other result's response is recorded for the key.
 */
export async function verifyPaid(
  { accounts, idempotency, verifier, log, refundUnknown }: PaidVerification,
  userId: number,
  email: string,
  { charge, key, fresh, explain }: { charge: PaidCharge; key?: IdempotencyKey; fresh?: boolean; explain?: boolean },
): Promise<VerificationResult> {
  let result: VerificationResult;
  try {
    // Someone is waiting for this answer: it goes ahead of bulk work in the engine.
    result = await verifier.verify(email, { priority: 'interactive', owner: userId, fresh, explain });
  } catch (error) {
    await refundOnce(accounts, userId, charge, key && { key });
    log.error({ err: error }, 'engine failed; token refunded');
    throw new ProblemError('internal', 'The verification failed on our side; the token was refunded.');
  }
  const response = { statusCode: 200, body: JSON.stringify(result) };
  if (refundable(result, refundUnknown)) await refundOnce(accounts, userId, charge, key && { key, response });
  else if (key) await idempotency.saveIdempotency({ userId, ...key, ...response });
  return result;
}

/** Takes VERIFY_COST from the balance (the charge to give back if need be), or throws the 402. */
export async function chargeForVerify(accounts: AccountStore, userId: number): Promise<PaidCharge> {
  const charged = await accounts.charge(userId, VERIFY_COST, 'verify');
  if (!charged.ok) throw insufficientTokens(charged);
  return { id: charged.chargeId, amount: VERIFY_COST };
}

export function verifyRoutes(scope: FastifyInstance, { store, verifier, refundUnknown }: AppConfig): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/verify', { schema: verifySchema }, async (request, reply) => {
    // A test token's answer costs nothing and asks no server (docs/api.md "Sandbox").
    if (isTestCaller(request)) return sandboxVerify(request.body.email);
    const user = currentUser(request);
    const key = idempotencyKey(request, ROUTE);
    // The charge comes first and is atomic (with claiming the key, when there is one), so
    // concurrent requests can never overspend or pay twice; an engine fault gives the token back.
    let charge: PaidCharge;
    if (key) {
      const charged = await chargeOnce(store.accounts, user.id, VERIFY_COST, key);
      if (charged.kind === 'recorded') return sendRecorded(reply, charged.record);
      charge = { id: charged.chargeId, amount: VERIFY_COST };
    } else {
      charge = await chargeForVerify(store.accounts, user.id);
    }
    const paid = { accounts: store.accounts, idempotency: store.idempotency, verifier, log: request.log, refundUnknown };
    const { email, fresh, explain } = request.body;
    return verifyPaid(paid, user.id, email, { charge, key, fresh, explain });
  });
}
