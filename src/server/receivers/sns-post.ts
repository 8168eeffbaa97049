import { sesNotification } from '../../engine/evidence/esp.js';
import { ProblemError } from '../http/errors.js';
import type { EvidenceReceiver } from '../store/store.js';
import { keepEvents, type EvidenceSink, type PostOutcome } from './post-outcome.js';
import { snsUrl, type SnsCertificates, type SnsFetcher } from './sns-fetcher.js';
import { readSnsMessage, snsSignatureValid, type SnsMessage } from './sns-message.js';

/** What an SNS receiver reaches beyond the store: SNS's certificates and its confirmation URLs. */
export interface SnsReach {
  certificates: SnsCertificates;
  fetcher: SnsFetcher;
}

export interface SnsPost {
  receiver: EvidenceReceiver;
  body: Buffer;
  sink: EvidenceSink;
  sns: SnsReach;
}

/** What a post did: a subscription confirmed or an unsubscription acknowledged, or a notification's events kept. */
export type SnsOutcome = { type: 'SubscriptionConfirmation'; confirmed: true } | { type: 'UnsubscribeConfirmation' } | ({ type: 'Notification' } & PostOutcome);

function parse(body: Buffer): SnsMessage {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ProblemError('invalid_request', 'The body is not JSON: SNS posts one message as a JSON object.');
  }
  const message = readSnsMessage(json);
  if (typeof message === 'string') throw new ProblemError('invalid_request', message);
  return message;
}

/** Nothing of a message is believed before this: its topic is the receiver's, and SNS signed it. */
async function verify(receiver: EvidenceReceiver, message: SnsMessage, sns: SnsReach): Promise<void> {
  if (receiver.topicArn !== null && message.TopicArn !== receiver.topicArn) {
    throw new ProblemError('forbidden', `This receiver takes messages of ${receiver.topicArn} only.`);
  }
  const certificateUrl = snsUrl(message.SigningCertURL);
  if (!certificateUrl || !certificateUrl.pathname.endsWith('.pem')) {
    throw new ProblemError('bad_signature', 'SigningCertURL is not a certificate on an SNS host (https://sns.<region>.amazonaws.com/….pem).');
  }
  let certificate: string;
  try {
    certificate = await sns.certificates.get(certificateUrl);
  } catch {
    throw new ProblemError('esp_unreachable', `The signing certificate could not be fetched from ${certificateUrl.host}; SNS will post again.`);
  }
  if (!snsSignatureValid(message, certificate)) throw new ProblemError('bad_signature', 'The message is not signed by the certificate it names.');
}

/** Confirms the subscription by GETting its SubscribeURL, which must be on an SNS host too. */
async function confirm(receiver: EvidenceReceiver, message: SnsMessage, { fetcher }: SnsReach, sink: EvidenceSink): Promise<void> {
  const url = snsUrl(message.SubscribeURL);
  if (!url) throw new ProblemError('bad_signature', 'SubscribeURL is not on an SNS host (https://sns.<region>.amazonaws.com/).');
  let status: number;
  try {
    ({ status } = await fetcher.get(url));
  } catch {
    status = 0;
  }
  if (status !== 200) throw new ProblemError('esp_unreachable', `SNS did not take the confirmation (${status || 'no answer'}); it will post it again.`);
  await sink.receivers.noteReceived(receiver.id, 'confirmed');
}

/**
 * One post of SNS to a receiver (docs/evidence.md "Live from an ESP"), signature checked first: a
 * SubscriptionConfirmation is confirmed, an UnsubscribeConfirmation acknowledged (nothing is
 * subscribed again), and a Notification's SES bounce, complaint or delivery kept as evidence. A
 * signed notification that is not SES's (a test message published by hand) is acknowledged and
 * counted as skipped: refusing it would only make SNS post it again.
 */
export async function takeSnsPost({ receiver, body, sink, sns }: SnsPost): Promise<SnsOutcome> {
  const message = parse(body);
  await verify(receiver, message, sns);
  if (message.Type === 'SubscriptionConfirmation') {
    await confirm(receiver, message, sns, sink);
    return { type: message.Type, confirmed: true };
  }
  if (message.Type === 'UnsubscribeConfirmation') return { type: message.Type };
  let inner: unknown;
  try {
    inner = JSON.parse(message.Message);
  } catch {
    return { type: 'Notification', received: 0, added: 0, skipped: 1 };
  }
  return { type: 'Notification', ...(await keepEvents(receiver, sesNotification(inner), sink)) };
}
