import { createVerify, X509Certificate } from 'node:crypto';

/**
 * Amazon SNS's HTTP(S) messages (docs/evidence.md "Live from an ESP"): what SES sends through a
 * topic. Each message is signed by SNS with the private key of the certificate at SigningCertURL;
 * the signed text is fixed fields of the message, each as its name, a newline, its value, a newline,
 * in the order the SNS documentation gives ("Verifying the signatures of Amazon SNS messages").
 */

export type SnsMessageType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

export interface SnsMessage {
  Type: SnsMessageType;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  /** Subscription and unsubscribe confirmations only. */
  SubscribeURL?: string;
  Token?: string;
}

const TYPES: readonly string[] = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'];
const REQUIRED = ['Type', 'MessageId', 'TopicArn', 'Message', 'Timestamp', 'SignatureVersion', 'Signature', 'SigningCertURL'] as const;

/** The signed fields by message type, in the order SNS signs them. */
const SIGNED_FIELDS: Record<SnsMessageType, readonly (keyof SnsMessage)[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** The message when `value` has the shape of one SNS sends, else why not (a 400). */
export function readSnsMessage(value: unknown): SnsMessage | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'The body is not an SNS message (a JSON object).';
  const fields = value as Record<string, unknown>;
  for (const name of REQUIRED) {
    if (typeof fields[name] !== 'string') return `The SNS message has no "${name}".`;
  }
  if (!TYPES.includes(fields.Type as string)) return `The SNS message type "${String(fields.Type)}" is not one this receiver takes.`;
  if (fields.SignatureVersion !== '1' && fields.SignatureVersion !== '2') return `SNS signature version "${String(fields.SignatureVersion)}" is not known.`;
  for (const name of ['Subject', 'SubscribeURL', 'Token'] as const) {
    if (fields[name] !== undefined && fields[name] !== null && typeof fields[name] !== 'string') return `The SNS message's "${name}" is not text.`;
  }
  const message = value as SnsMessage;
  if (message.Type !== 'Notification' && (message.SubscribeURL === undefined || message.Token === undefined)) {
    return `The SNS ${message.Type} has no SubscribeURL and Token.`;
  }
  return message;
}

/** The text SNS signed for this message: a Notification's Subject only when it has one. */
export function snsStringToSign(message: SnsMessage): string {
  return SIGNED_FIELDS[message.Type]
    .filter((name) => typeof message[name] === 'string')
    .map((name) => `${name}\n${message[name]}\n`)
    .join('');
}

/**
 * Whether the message is signed by the certificate (PEM) and the certificate is in its validity
 * period: SignatureVersion 1 is RSA with SHA-1, 2 RSA with SHA-256.
 */
export function snsSignatureValid(message: SnsMessage, certificatePem: string, nowMs = Date.now()): boolean {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch {
    return false;
  }
  if (nowMs < Date.parse(certificate.validFrom) || nowMs > Date.parse(certificate.validTo)) return false;
  const verifier = createVerify(message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  verifier.update(snsStringToSign(message), 'utf8');
  try {
    return verifier.verify(certificate.publicKey, Buffer.from(message.Signature, 'base64'));
  } catch {
    return false;
  }
}
