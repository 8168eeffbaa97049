import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { parseRetryAfter } from '../../text/retry-after.js';
import { VERSION } from '../../version.js';
import type { BackgroundLog } from '../background/log.js';
import { WakeableSleep } from '../background/wakeable-sleep.js';
import type { AttemptObserver } from '../metrics/webhook-metrics.js';
import type { HolderStanding } from '../store/model.js';
import type { DueDelivery, WebhookStore } from '../store/store.js';
import { checkDestination, deliveryAgent, DestinationRefused } from './destination.js';
import type { WebhookPolicy } from './policy.js';
import { afterAttempt, type AttemptAnswer } from './retry-schedule.js';
import { signedHeaders } from './signing.js';

/** One attempt's limit (Standard Webhooks suggests 15 s): a receiver that takes longer has failed it. */
const ATTEMPT_TIMEOUT_MS = 15_000;
/**
 * A delivery's lease outlasts its attempt twice over, so it never runs out while the attempt is
 * made (no renewal needed): another node takes a delivery over only from a holder that is gone
 * (the work queue's rescue) or stuck.
 */
const MIN_LEASE_MS = 2 * ATTEMPT_TIMEOUT_MS;
/**
 * Attempts one node makes at once: each is one HTTP request waiting, so many fit. With at most
 * DELIVERIES_IN_FLIGHT_PER_ACCOUNT per account (the claim's bound), an account whose receiver never
 * answers holds a few of them, and the claim's fair order gives the next free one to whoever has
 * fewest in flight.
 */
const MAX_IN_FLIGHT = 64;

export interface WebhookDelivererOptions {
  store: WebhookStore;
  /** The holder the node's job runner joined as: its deliveries are taken over at once when it is gone. */
  holder: string;
  /** Private receivers allowed or not (settled deliveries are pruned by maintenance: src/server/maintenance/webhook-pruner.ts). */
  policy: Pick<WebhookPolicy, 'allowPrivateWebhooks'>;
  /** Told what followed each attempt recorded (metrics). */
  onAttempt?: AttemptObserver;
  /** Seconds after each failure (retry-schedule.ts). */
  schedule: readonly number[];
  log: BackgroundLog;
  /** How long a claim on a delivery lasts; at least twice an attempt's limit. */
  leaseMs: number;
  /** How often to look for due deliveries. */
  pollMs?: number;
  /** The holder's standing: while lost, nothing is claimed, and a loss cuts the attempts in flight short (others may take them over). */
  standing?: HolderStanding;
}

export interface WebhookDeliverer {
  /** There may be a delivery due (this node just completed a job): look now rather than at the next poll. */
  wake(): void;
  /** Claims nothing more, cuts the attempts in flight short and gives their deliveries back (due at once, for any node). */
  stop(): Promise<void>;
}

/**
 * Words for a failed attempt without an answer, shown to the endpoint's owner: the cause's code
 * when it has one (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT), never the system's message, which names
 * the address connected to (docs/api.md "Webhooks": what a name resolved to is never told).
 */
export function describeFailure(error: unknown): string {
  if (error instanceof DestinationRefused) return error.message;
  if (!(error instanceof Error)) return 'the request failed';
  if (error.name === 'TimeoutError') return `no answer within ${ATTEMPT_TIMEOUT_MS / 1_000} s`;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `the request failed (${code})` : 'the request failed';
}

/** One attempt: the event POSTed, signed, to its endpoint (checked again: a name may now resolve elsewhere). */
async function post(delivery: DueDelivery, agent: Dispatcher, allowPrivateWebhooks: boolean, signal: AbortSignal): Promise<AttemptAnswer> {
  const { url, secret } = delivery.endpoint;
  await checkDestination(url, allowPrivateWebhooks);
  const response = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      ...signedHeaders(secret, delivery.event.id, delivery.event.payload, new Date()),
      'content-type': 'application/json',
      'user-agent': `mailverify/${VERSION}`,
    },
    body: delivery.event.payload,
    signal: AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
  });
  // The body says nothing we use; read it so the connection can be kept.
  await response.body.dump();
  const retryAfter = response.headers['retry-after'];
  return { status: response.statusCode, retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) };
}

/**
 * Delivers webhook events from the store: claims due deliveries under leases naming this node's
 * holder, POSTs each signed (Standard Webhooks), and records the outcome with what follows
 * (retry-schedule.ts). Every node with a job runner runs one; a delivery is held by one at a time,
 * so no event is ever attempted twice at once, and its retries go on from whichever node claims it.
 */
export function startWebhookDeliverer(options: WebhookDelivererOptions): WebhookDeliverer {
  const { store, holder, log, schedule, onAttempt } = options;
  const { allowPrivateWebhooks } = options.policy;
  const leaseMs = Math.max(options.leaseMs, MIN_LEASE_MS);
  const pollMs = options.pollMs ?? 500;
  const agent = deliveryAgent(allowPrivateWebhooks);
  const inFlight = new Map<string, { cancel: AbortController; done: Promise<void> }>();
  let stopped = false;
  const sleep = new WakeableSleep();

  async function attempt(delivery: DueDelivery, cancel: AbortController): Promise<void> {
    const details = { eventId: delivery.event.id, type: delivery.event.type, endpointId: delivery.endpoint.id, attempt: delivery.attempts + 1 };
    log.info(details, 'delivering a webhook event');
    const startedAt = performance.now();
    let answer: AttemptAnswer;
    let error: string | null = null;
    try {
      answer = await post(delivery, agent, allowPrivateWebhooks, cancel.signal);
    } catch (failure) {
      if (cancel.signal.aborted) {
        // Stopping: the delivery goes back as it was, for whichever node claims it next.
        await store.releaseDeliveries([delivery.lease]);
        return;
      }
      answer = { status: null };
      error = describeFailure(failure);
    }
    const latencyMs = Math.round(performance.now() - startedAt);
    const next = afterAttempt(delivery.attempts + 1, answer, schedule);
    const kept = await store.recordAttempt({ lease: delivery.lease, attempt: { status: answer.status, latencyMs, error }, next });
    if (kept) onAttempt?.(next.kind);
    log.info({ ...details, status: answer.status, error, latencyMs, next: next.kind, recorded: kept }, 'webhook attempt made');
  }

  function start(delivery: DueDelivery): void {
    const cancel = new AbortController();
    const done = attempt(delivery, cancel)
      .catch((error: unknown) =>
        log.error({ err: error, eventId: delivery.event.id }, 'could not record a webhook attempt; it is tried again when its lease runs out'),
      )
      .finally(() => {
        inFlight.delete(delivery.lease);
        sleep.wake();
      });
    inFlight.set(delivery.lease, { cancel, done });
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      const room = MAX_IN_FLIGHT - inFlight.size;
      if (room > 0 && options.standing?.standing() !== false) {
        try {
          for (const delivery of await store.claimDeliveries({ max: room, leaseMs, holder })) start(delivery);
        } catch (error) {
          log.error({ err: error }, 'could not claim webhook deliveries; trying again shortly');
        }
      }
      if (!stopped) await sleep.sleep(pollMs);
    }
  }

  options.standing?.onLapse(() => {
    for (const { cancel } of inFlight.values()) cancel.abort();
  });
  const running = loop();
  return {
    wake: () => sleep.wake(),
    async stop() {
      stopped = true;
      sleep.wake();
      await running;
      for (const { cancel } of inFlight.values()) cancel.abort();
      await Promise.all([...inFlight.values()].map((each) => each.done));
      await agent.close();
    },
  };
}
