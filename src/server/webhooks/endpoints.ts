import { ProblemError } from '../errors.js';
import type { WebhookEndpoint, WebhookStore } from '../store/store.js';
import { checkDestination, DestinationRefused } from './destination.js';
import { testEvent } from './events.js';
import { newEndpointSecret } from './signing.js';

/** What the API and the dashboard both do with an account's endpoints, written once. */

/** Registers an endpoint with a new secret; a URL that is malformed or reaches a private network (unless allowed) is a 400. */
export async function registerEndpoint(
  store: WebhookStore,
  userId: number,
  { url: given, description }: { url: string; description?: string },
  allowPrivateNetworks: boolean,
): Promise<WebhookEndpoint> {
  // Pasted URLs come with spaces: the API and the dashboard store the same URL for the same paste.
  const url = given.trim();
  try {
    await checkDestination(url, allowPrivateNetworks);
  } catch (error) {
    if (error instanceof DestinationRefused) throw new ProblemError('invalid_request', error.message);
    throw error;
  }
  const trimmed = description?.trim();
  return store.createEndpoint(userId, { url, description: trimmed ? trimmed : null, secret: newEndpointSecret() });
}

/**
 * Enqueues a `webhook.test` event for one of the user's endpoints; its id. A 404 for an unknown or
 * another user's endpoint; a 400 for a disabled one (nothing is sent to it, so nothing is queued).
 */
export async function sendTestEvent(store: WebhookStore, userId: number, endpointId: string): Promise<string> {
  const endpoint = await store.findEndpoint(userId, endpointId);
  if (!endpoint) throw new ProblemError('not_found', `No webhook endpoint ${endpointId}.`);
  if (endpoint.disabledAt !== null) throw new ProblemError('invalid_request', 'The endpoint is disabled (it answered 410 Gone); remove it and add it again to receive events.');
  const event = testEvent(endpoint.id, new Date());
  await store.enqueue(endpoint.id, event);
  return event.id;
}

/** Removes one of the user's endpoints; a 404 when there is no such endpoint (or it is removed already). */
export async function removeEndpoint(store: WebhookStore, userId: number, endpointId: string): Promise<void> {
  if (!(await store.removeEndpoint(userId, endpointId))) throw new ProblemError('not_found', `No webhook endpoint ${endpointId}.`);
}
