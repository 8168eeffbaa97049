import type { AttemptOutcome } from '../store/store.js';

/**
 * When a delivery is tried, in seconds after the previous failure (the first at once): the schedule
 * Standard Webhooks suggests, about three days in all. Each wait but the first is drawn within ±10%,
 * so that the retries of many events that failed together (a receiver down) do not come together.
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [0, 5, 5 * 60, 30 * 60, 2 * 3_600, 5 * 3_600, 10 * 3_600, 14 * 3_600, 20 * 3_600, 24 * 3_600];
const JITTER = 0.1;
/** For testing only: a shorter schedule, comma-separated seconds (`0,1,1`: three attempts a second apart). */
const RETRY_SCHEDULE_ENV = 'MAILVERIFY_WEBHOOK_RETRY_SCHEDULE';
/** Answers whose Retry-After is honoured (Standard Webhooks: throttled, or a gateway in trouble). */
const HONOURS_RETRY_AFTER = new Set([429, 502, 504]);
/** The longest Retry-After honoured: a receiver cannot park a delivery beyond the schedule's own longest wait. */
const MAX_RETRY_AFTER_SECONDS = 24 * 3_600;

/** The schedule from MAILVERIFY_WEBHOOK_RETRY_SCHEDULE when set, else the default; throws on a malformed value. */
export function retrySchedule(env: NodeJS.ProcessEnv): readonly number[] {
  const raw = env[RETRY_SCHEDULE_ENV];
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETRY_SCHEDULE_SECONDS;
  const steps = raw.split(',').map((part) => Number(part.trim()));
  if (steps.some((seconds) => !Number.isFinite(seconds) || seconds < 0)) {
    throw new Error(`${RETRY_SCHEDULE_ENV} must be comma-separated seconds (e.g. 0,1,1), not "${raw}"`);
  }
  return steps;
}

/** What a receiver's answer (or the lack of one) means for the delivery. */
export interface AttemptAnswer {
  /** The HTTP status; null when there was none (refused, timed out, cut off). */
  status: number | null;
  retryAfterSeconds?: number;
}

/**
 * What follows the `attempt`-th attempt (1 for the first): 2xx delivered, 410 Gone disables the
 * endpoint, anything else is tried again after the schedule's next wait (or the receiver's
 * Retry-After on 429, 502 and 504 when longer), until the schedule runs out.
 */
export function afterAttempt(attempt: number, answer: AttemptAnswer, schedule: readonly number[], random: () => number = Math.random): AttemptOutcome['next'] {
  const { status } = answer;
  if (status !== null && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'disable' };
  const wait = schedule[attempt];
  if (wait === undefined) return { kind: 'failed' };
  const jittered = wait * (1 + JITTER * (2 * random() - 1));
  const asked = status !== null && HONOURS_RETRY_AFTER.has(status) ? Math.min(answer.retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS) : 0;
  return { kind: 'retry', retryInMs: Math.round(1_000 * Math.max(jittered, asked)) };
}
