import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { VerificationResult } from '../../engine/core/types.js';
import { insufficientTokens, ProblemError } from '../http/errors.js';
import type { ServiceVerifier } from '../verifier/result-reuse.js';
import { refundable } from '../store/refund-rule.js';
import { StoreFault, type AccountStore, type IdempotencyKey, type IdempotencyStore, type KeyedEnd, type PaidCharge } from '../store/store.js';

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
 * never runs free; any other result's response is recorded for the key. The API's POST /v1/verify
 * and the dashboard's verify page both pay this way.
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
