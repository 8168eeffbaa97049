import { generateReceiverSecret, hashApiToken } from '../auth/api-tokens.js';
import { ProblemError } from '../http/errors.js';
import type { EvidenceReceiver, EvidenceReceiverStore, ReceiverKind } from '../store/store.js';
import type { CreateReceiverRequest } from '../../wire/evidence-receivers.js';
import { normalizeSendgridPublicKey } from './sendgrid-signature.js';

/** Receivers one account may have: a few per ESP account is plenty, and each is a URL that takes posts. */
export const RECEIVERS_PER_ACCOUNT = 10;

/** An SNS topic's ARN (any partition: aws, aws-cn, aws-us-gov), standard or FIFO. */
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

/** The URL an ESP posts to, on the origin (`https://host`) the account reached us by; the secret at its end is the capability (only its hash is kept). */
export function receiverUrl(origin: string, kind: ReceiverKind, secret: string): string {
  return `${origin}/v1/evidence/hooks/${kind}/${secret}`;
}

function checked({ kind, publicKey, topicArn }: CreateReceiverRequest): { publicKey: string | null; topicArn: string | null } {
  if (kind === 'sendgrid') {
    if (topicArn !== undefined) throw new ProblemError('invalid_request', 'A SendGrid receiver takes no topicArn.');
    if (publicKey === undefined)
      throw new ProblemError('invalid_request', 'A SendGrid receiver needs the publicKey SendGrid shows for its signed event webhook.');
    try {
      return { publicKey: normalizeSendgridPublicKey(publicKey), topicArn: null };
    } catch (error) {
      throw new ProblemError('invalid_request', (error as Error).message);
    }
  }
  if (publicKey !== undefined) throw new ProblemError('invalid_request', 'An SNS receiver takes no publicKey: SNS signs with certificates of its own.');
  if (topicArn !== undefined && !TOPIC_ARN.test(topicArn)) {
    throw new ProblemError('invalid_request', 'topicArn is not an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>).');
  }
  return { publicKey: null, topicArn: topicArn ?? null };
}

/** A new receiver for the user, with the secret of its URL (shown once); 400 for a bad key or ARN, 409 past the limit. */
export async function createReceiver(
  receivers: EvidenceReceiverStore,
  userId: number,
  request: CreateReceiverRequest,
): Promise<{ receiver: EvidenceReceiver; secret: string }> {
  const fields = checked(request);
  const secret = generateReceiverSecret();
  const receiver = await receivers.createReceiver(userId, { kind: request.kind, urlHash: hashApiToken(secret), ...fields }, RECEIVERS_PER_ACCOUNT);
  if (!receiver) {
    throw new ProblemError('evidence_receiver_limit', `An account may have ${RECEIVERS_PER_ACCOUNT} evidence receivers; delete one first.`);
  }
  return { receiver, secret };
}

/** The receiver a post's URL names, when the secret is one of ours for a receiver of that kind. */
export async function receiverOfPost(receivers: EvidenceReceiverStore, kind: ReceiverKind, secret: string): Promise<EvidenceReceiver> {
  // Found by the secret's hash: nothing is compared with the secret itself, so no timing tells how much of a guess was right.
  const receiver = await receivers.findReceiverByHash(hashApiToken(secret));
  if (!receiver || receiver.kind !== kind) throw new ProblemError('not_found', 'No evidence receiver has this URL (it may have been deleted).');
  return receiver;
}
