import type { ReceiverKind } from '../../wire/evidence-receivers.js';

/** The records of the evidence receivers (docs/evidence.md "Live from an ESP"), as the Store hands them out. */

/** Which ESP posts to a receiver: SendGrid's signed event webhook, or SES through an SNS topic. */
export type { ReceiverKind };

export interface EvidenceReceiver {
  id: string;
  userId: number;
  kind: ReceiverKind;
  /** SendGrid: the ECDSA P-256 public key that signs its posts, base64 DER SubjectPublicKeyInfo. */
  publicKey: string | null;
  /** SNS: the one topic whose messages are taken; null takes any topic that knows the URL. */
  topicArn: string | null;
  createdAt: string;
  /** SNS: when its subscription was last confirmed. */
  confirmedAt: string | null;
  /** When a post last added evidence. */
  lastEventAt: string | null;
}

/**
 * A receiver to create. Its URL ends in a secret (the capability that lets an ESP post to it) that
 * only the answer to its creation shows; the store keeps its SHA-256 as the lookup key.
 */
export interface NewReceiver {
  kind: ReceiverKind;
  urlHash: string;
  publicKey: string | null;
  topicArn: string | null;
}
