import { ProblemError } from '../http/errors.js';
import type { WebhookEndpoint, WebhookStore } from '../store/store.js';
import { checkDestination, DestinationRefused } from './destination.js';
import { testEvent } from '../store/webhook-events.js';
import type { WebhookPolicy } from './policy.js';
import { newEndpointSecret } from './signing.js';

/** What the API and the dashboard both do with an account's endpoints, written once. */

/**
 * Registers an endpoint with a new secret; a URL that is malformed or reaches an address webhooks
 * are not sent to is a 400, one beyond the account's `maxEndpoints` a 409 `webhook_endpoint_limit`.
 */
export async function registerEndpoint(
  store: WebhookStore,
  userId: number,
  { url: given, description }: { url: string; description?: string },
  policy: Pick<WebhookPolicy, 'allowPrivateWebhooks' | 'maxEndpoints'>,
): Promise<WebhookEndpoint> {
  // Pasted URLs come with spaces: the API and the dashboard store the same URL for the same paste.
  const url = given.trim();
  try {
    await checkDestination(url, policy.allowPrivateWebhooks);
  } catch (error) {
    if (error instanceof DestinationRefused) throw new ProblemError('invalid_request', error.message);
    throw error;
  }
  const trimmed = description?.trim();
  const endpoint = await store.createEndpoint(userId, { url, description: trimmed ? trimmed : null, secret: newEndpointSecret() }, policy.maxEndpoints);
  if (endpoint === undefined) {
    throw new ProblemError('webhook_endpoint_limit', `An account may have ${policy.maxEndpoints} webhook endpoints; remove one before adding another.`);
  }
  return endpoint;
}

/** How long a client is told to wait (Retry-After) once its test events of the minute are spent: at most the minute. */
const TEST_LIMIT_RETRY_AFTER_SECONDS = 60;

/**
 * Enqueues a `webhook.test` event for one of the user's endpoints; its id. A 404 for an unknown or
 * another user's endpoint; a 400 for a disabled one (nothing is sent to it, so nothing is queued);
 * a 429 `webhook_test_limit` beyond the account's test events per minute.
 */
export async function sendTestEvent(
  store: WebhookStore,
  userId: number,
  endpointId: string,
  { testsPerMinute }: Pick<WebhookPolicy, 'testsPerMinute'>,
): Promise<string> {
  const endpoint = await store.findEndpoint(userId, endpointId);
  if (!endpoint) throw new ProblemError('not_found', `No webhook endpoint ${endpointId}.`);
  if (endpoint.disabledAt !== null)
    throw new ProblemError(
      'invalid_request',
      `The endpoint is disabled: ${endpoint.disabledReason ?? 'it answered 410 Gone.'} Remove it and add it again to receive events.`,
    );
  const event = testEvent(endpoint.id, new Date());
  if (!(await store.enqueue(endpoint.id, event, testsPerMinute))) {
    // Clients that honour Retry-After (ours does) wait the minute out rather than retry at once.
    throw new ProblemError(
      'webhook_test_limit',
      `An account may send ${testsPerMinute} test events a minute; try again in ${TEST_LIMIT_RETRY_AFTER_SECONDS} s.`,
      {},
      TEST_LIMIT_RETRY_AFTER_SECONDS,
    );
  }
  return event.id;
}

/** Removes one of the user's endpoints; a 404 when there is no such endpoint (or it is removed already). */
export async function removeEndpoint(store: WebhookStore, userId: number, endpointId: string): Promise<void> {
  if (!(await store.removeEndpoint(userId, endpointId))) throw new ProblemError('not_found', `No webhook endpoint ${endpointId}.`);
}
