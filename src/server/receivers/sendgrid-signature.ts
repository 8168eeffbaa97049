import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * SendGrid's signed event webhook (docs/evidence.md "Live from an ESP"): each POST carries
 * `X-Twilio-Email-Event-Webhook-Signature`, a base64 DER ECDSA signature (P-256, SHA-256) over the
 * `X-Twilio-Email-Event-Webhook-Timestamp` header's text followed by the raw body, made with the key
 * whose public half SendGrid shows the account owner.
 */

export const SENDGRID_SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

/** A signed post older or newer than this is refused: a captured batch cannot be replayed later. */
export const SENDGRID_MAX_SKEW_SECONDS = 10 * 60;

/** The only curve SendGrid signs with; a key on another is a paste error, said at once. */
const P256 = 'prime256v1';

/**
 * The public key as SendGrid shows it (base64 of the DER SubjectPublicKeyInfo) or as PEM, checked
 * to be an EC key on P-256. Returns the key in the one form kept (base64 DER SPKI); throws an Error
 * whose message says what is wrong with it.
 */
export function normalizeSendgridPublicKey(text: string): string {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    key = trimmed.startsWith('-----BEGIN')
      ? createPublicKey(trimmed)
      : createPublicKey({ key: Buffer.from(trimmed.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new Error('The public key is neither PEM nor base64 DER (SubjectPublicKeyInfo): copy it whole from SendGrid.');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== P256) {
    throw new Error('The public key is not an ECDSA P-256 key, which SendGrid signs with.');
  }
  return key.export({ format: 'der', type: 'spki' }).toString('base64');
}

export interface SendgridSignedPost {
  /** The kept key: base64 DER SPKI (normalizeSendgridPublicKey). */
  publicKey: string;
  signature: string | undefined;
  timestamp: string | undefined;
  body: Buffer;
  nowMs?: number;
}

/** Why a post is refused: `unsigned` (401) when it carries no signature, `forged` (403) otherwise. */
export type SignatureRefusal = { refused: 'unsigned' | 'forged'; why: string };

/** Checks one post; undefined when it is signed by the key and fresh, else why not. */
export function checkSendgridSignature({ publicKey, signature, timestamp, body, nowMs = Date.now() }: SendgridSignedPost): SignatureRefusal | undefined {
  if (!signature || !timestamp)
    return { refused: 'unsigned', why: 'The post carries no SendGrid signature and timestamp headers: turn on the signed event webhook.' };
  if (!/^\d{1,12}$/.test(timestamp)) return { refused: 'forged', why: 'The signature timestamp is not a number of seconds.' };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SENDGRID_MAX_SKEW_SECONDS) {
    return { refused: 'forged', why: `The signature timestamp is more than ${SENDGRID_MAX_SKEW_SECONDS / 60} minutes from now: a stale or replayed post.` };
  }
  const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), body]);
  let good = false;
  try {
    good = verify('sha256', signed, { key, dsaEncoding: 'der' }, Buffer.from(signature, 'base64'));
  } catch {
    // A signature that is not DER at all is as forged as a wrong one.
  }
  return good ? undefined : { refused: 'forged', why: "The signature does not match this receiver's public key." };
}
