import { randomBytes } from 'node:crypto';
import { VERDICTS, type Verdict } from '../../engine/core/types.js';
import type { VerdictCount, WebhookEvent } from './store.js';

/**
 * The events an account's webhook endpoints receive (docs/api.md "Webhooks"), in the Standard
 * Webhooks shape: `{type, timestamp, data}`. The id is the `webhook-id` header: made once with the
 * event, so every retry (from any node) carries the same one and a receiver can drop repeats.
 */
function newEvent(type: WebhookEvent['type'], data: object, now: Date): WebhookEvent {
  const id = `msg_${randomBytes(16).toString('base64url')}`;
  return { id, type, payload: JSON.stringify({ type, timestamp: now.toISOString(), data }) };
}

/** A job's results per verdict, every verdict named (0 when none has it), so a receiver need not know which exist. */
function countsPerVerdict(counts: readonly VerdictCount[]): Record<Verdict, number> {
  const perVerdict = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<Verdict, number>;
  for (const { verdict, count } of counts) perVerdict[verdict] += count;
  return perVerdict;
}

/**
 * `bulk_job.completed`. `resultsUrl` is the results' path on the service (relative to its base URL):
 * a worker that writes the last result does not know the address its clients reach the API at.
 */
export function jobCompletedEvent(job: { id: string; total: number; counts: readonly VerdictCount[] }, now: Date): WebhookEvent {
  const data = { jobId: job.id, status: 'completed', total: job.total, counts: countsPerVerdict(job.counts), resultsUrl: `/v1/bulk-verify/${job.id}` };
  return newEvent('bulk_job.completed', data, now);
}

/** `webhook.test`: what `POST /v1/webhooks/{id}/test` sends, so an owner can see a receiver work. */
export function testEvent(endpointId: string, now: Date): WebhookEvent {
  return newEvent('webhook.test', { endpointId }, now);
}
