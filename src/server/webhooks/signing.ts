import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** Bytes of a new endpoint secret: 24 (192 bits), within the 24 to 64 Standard Webhooks asks for. */
const SECRET_BYTES = 24;

/** A new endpoint's signing secret: `whsec_` and the base64 of random bytes (Standard Webhooks 1.0). */
export function newEndpointSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The headers of one attempt (Standard Webhooks 1.0): the event's id (the same on every retry), the
 * attempt's time, and `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the secret's bytes.
 * Signed by the spec's own library, so that what we send is what its verifiers check.
 */
export function signedHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  };
}
