import { randomUUID } from 'node:crypto';
import type { ApiClient } from '../../client/api-client.js';
import { createRateLimiter, type RateLimiter } from '../../client/rate-limiter.js';
import type { VerificationResult } from '../../engine/core/types.js';
import { forEachConcurrently } from './concurrently.js';
import type { Io } from '../output/io.js';
import { ratePhrase } from '../output/format.js';
import type { ProgramOptions } from '../options/program-options.js';
import { announceWait, createSession } from './session.js';

/** Requests in flight at once, at most; the account's rate limit may lower it. */
const MAX_IN_FLIGHT = 8;

/**
 * Pacing for several addresses: the account's rate limit, with the account request itself
 * counted, so that concurrent verifies stay within it rather than collect 429s.
 */
async function pacing(client: ApiClient, count: number, io: Io): Promise<{ concurrency: number; pace?: RateLimiter }> {
  if (count === 1) return { concurrency: 1 };
  const { limit, windowSeconds } = (await client.account()).rateLimit;
  const rate = ratePhrase(limit, windowSeconds);
  const pace = createRateLimiter(limit, windowSeconds * 1000, undefined, (ms) =>
    announceWait(io, ms, `waiting for the account's rate limit (${rate})`, 'next request'),
  );
  await pace();
  return { concurrency: Math.max(1, Math.min(MAX_IN_FLIGHT, limit)), pace };
}

/**
 * Results from the service: each distinct address verified once (a repeat would be charged
 * again), concurrently within the rate limit, each POST with its own Idempotency-Key so that a
 * retry after a 429 or a cut connection is never charged twice.
 */
export function remoteSource(program: ProgramOptions, io: Io, { fresh = false, explain = false }: { fresh?: boolean; explain?: boolean } = {}) {
  const session = createSession(program, io);
  const client = session.authenticatedClient();
  return async (emails: string[], onResult: (result: VerificationResult) => void): Promise<void> => {
    try {
      const occurrences = new Map<string, number>();
      for (const email of emails) occurrences.set(email, (occurrences.get(email) ?? 0) + 1);
      const distinct = [...occurrences.keys()];
      const { concurrency, pace } = await pacing(client, distinct.length, io);
      await forEachConcurrently(distinct, concurrency, async (email) => {
        await pace?.();
        const result = await client.verify(email, { idempotencyKey: randomUUID(), fresh, explain });
        // Reported under the address as given, which is what the caller matches results by.
        for (let i = 0; i < occurrences.get(email)!; i += 1) onResult({ ...result, email });
      });
    } finally {
      await session.close();
    }
  };
}
