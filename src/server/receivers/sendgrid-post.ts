import { sendgridEvents } from '../../engine/evidence/esp.js';
import { ProblemError } from '../http/errors.js';
import type { EvidenceReceiver } from '../store/store.js';
import { checkSendgridSignature, SENDGRID_SIGNATURE_HEADER, SENDGRID_TIMESTAMP_HEADER } from './sendgrid-signature.js';
import { keepEvents, refusal, type EvidenceSink, type PostOutcome } from './post-outcome.js';

export interface SendgridPost {
  receiver: EvidenceReceiver;
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as it arrived: the signature covers these bytes. */
  body: Buffer;
  sink: EvidenceSink;
  nowMs?: number;
}

const header = (headers: SendgridPost['headers'], name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * One post of SendGrid's signed event webhook: the signature first (nothing of an unsigned or
 * forged post is read further), then its events (bounce, dropped, delivered, deferred, spamreport)
 * as the account's evidence.
 */
export async function takeSendgridPost({ receiver, headers, body, sink, nowMs }: SendgridPost): Promise<PostOutcome> {
  const refused = checkSendgridSignature({
    publicKey: receiver.publicKey!,
    signature: header(headers, SENDGRID_SIGNATURE_HEADER),
    timestamp: header(headers, SENDGRID_TIMESTAMP_HEADER),
    body,
    nowMs,
  });
  if (refused) throw refusal(refused);
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ProblemError('invalid_request', 'The body is not JSON: SendGrid posts an array of events.');
  }
  return keepEvents(receiver, sendgridEvents(json), sink);
}
