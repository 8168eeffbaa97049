import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { StoreError, type IdempotencyKey, type KeyedResponse, type AccountStore, type KeyedCharge } from '../store/store.js';
import { insufficientTokens, ProblemError } from './errors.js';

/**
 * `Idempotency-Key` (docs/api.md): a repeat of a POST with the same key and the same body within
 * 24 h gets the first response again, without a new charge; the same key with another body is a
 * 409. Only successful responses are recorded: a refused request (402, 500) charged nothing, so
 * running it again is what a retry should do. Everything lives in the store, so that several
 * service instances on one store honour one key once.
 */

/** How long a repeat waits for the first request with its key to finish before it is told to retry. */
const RUNNING_WAIT_MS = 30_000;
/** How often a waiting repeat looks whether the first has finished. */
const RUNNING_POLL_MS = 50;

/**
 * The key of a request carrying one, else undefined. The body hashed is the parsed one, so the
 * same request sent with other whitespace is still the same request.
 */
export function idempotencyKey(request: FastifyRequest, route: string): IdempotencyKey | undefined {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string') return undefined;
  const requestHash = createHash('sha256')
    .update(JSON.stringify(request.body ?? null))
    .digest('hex');
  return { key, route, requestHash };
}

/** Runs a store call, turning the store's refusal of a key reused for another body into the 409. */
export async function unlessConflicting<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreError && error.code === 'idempotency_conflict') {
      throw new ProblemError('idempotency_conflict', 'This Idempotency-Key was used with a different request body in the last 24 hours.');
    }
    throw error;
  }
}

/** Tells the client this answer is the first request's, not a new one. */
export function markReplayed(reply: FastifyReply): FastifyReply {
  return reply.header('Idempotent-Replayed', 'true');
}

export function sendRecorded(reply: FastifyReply, record: KeyedResponse): FastifyReply {
  return markReplayed(reply).code(record.statusCode).type('application/json; charset=utf-8').send(record.body);
}

/**
 * Charges for a keyed request, or finds the response a first request with the key recorded. A
 * repeat arriving while the first still runs (a client retrying after a cut connection) waits for
 * it, then replays its response; if it runs too long the repeat gets a 409 to retry later.
 */
export async function chargeOnce(
  accounts: AccountStore,
  userId: number,
  amount: number,
  key: IdempotencyKey,
): Promise<Extract<KeyedCharge, { kind: 'charged' | 'recorded' }>> {
  const deadline = Date.now() + RUNNING_WAIT_MS;
  for (;;) {
    const outcome = await unlessConflicting(() => accounts.chargeWithKey(userId, amount, 'verify', key));
    if (outcome.kind === 'short') throw insufficientTokens(outcome);
    if (outcome.kind !== 'running') return outcome;
    if (Date.now() > deadline) {
      throw new ProblemError('idempotency_conflict', 'A request with this Idempotency-Key is still running; retry it later.');
    }
    await new Promise((resolve) => setTimeout(resolve, RUNNING_POLL_MS));
  }
}
