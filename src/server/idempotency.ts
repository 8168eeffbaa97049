import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyRecord, Store } from './store/store.js';
import { ProblemError } from './errors.js';

/**
 * `Idempotency-Key` (DESIGN.md §2): a repeat of a POST with the same key and the same body within
 * 24 h gets the first response again, without a new charge; the same key with another body is a
 * 409. Only successful responses are recorded: a refused request (402, 500) charged nothing, so
 * running it again is what a retry should do. The store prunes records older than 24 h.
 */
export interface IdempotencyScope {
  userId: number;
  key: string;
  route: string;
  requestHash: string;
}

/**
 * The scope of a request carrying a key, else undefined. The body hashed is the parsed one, so
 * the same request sent with other whitespace or key order is still the same request.
 */
export function idempotencyScope(request: FastifyRequest, userId: number, route: string): IdempotencyScope | undefined {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string') return undefined;
  const requestHash = createHash('sha256').update(JSON.stringify(request.body ?? null)).digest('hex');
  return { userId, key, route, requestHash };
}

/** The recorded response to replay, undefined when the key is new; a 409 when it was used for another body. */
export function recordedResponse(store: Store, scope: IdempotencyScope): IdempotencyRecord | undefined {
  const record = store.findIdempotency(scope.userId, scope.key, scope.route);
  if (record && record.requestHash !== scope.requestHash) throw conflict();
  return record;
}

export function conflict(): ProblemError {
  return new ProblemError('idempotency_conflict', 'This Idempotency-Key was used with a different request body in the last 24 hours.');
}

export function sendRecorded(reply: FastifyReply, record: IdempotencyRecord): FastifyReply {
  return reply.code(record.statusCode).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').send(record.body);
}

/**
 * Runs `work` at most once per key: a repeat arriving while the first is still running (a client
 * retrying after a cut connection) waits for it and then replays its recorded response.
 */
export function createIdempotencyGate(store: Store) {
  const running = new Map<string, Promise<unknown>>();
  return async function once<T>(scope: IdempotencyScope, work: () => Promise<T>): Promise<{ recorded: IdempotencyRecord } | { value: T }> {
    const id = `${scope.userId}\n${scope.route}\n${scope.key}`;
    for (let pending = running.get(id); pending; pending = running.get(id)) await pending.catch(() => undefined);
    const recorded = recordedResponse(store, scope);
    if (recorded) return { recorded };
    const promise = work();
    running.set(id, promise);
    try {
      const value = await promise;
      store.saveIdempotency({ ...scope, statusCode: 200, body: JSON.stringify(value) });
      return { value };
    } finally {
      running.delete(id);
    }
  };
}
