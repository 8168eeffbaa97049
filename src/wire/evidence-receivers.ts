import type { FromSchema } from 'json-schema-to-ts';

/**
 * The bodies of `/v1/evidence/receivers` and of the receivers' own answers to the ESPs (docs/api.md
 * "Evidence receivers"), shared by the server's route schemas and the client's types.
 */

export const RECEIVER_KINDS = ['sendgrid', 'sns'] as const;

export const createReceiverRequestSchema = {
  type: 'object',
  required: ['kind'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: RECEIVER_KINDS, description: "`sendgrid` (SendGrid's signed event webhook) or `sns` (SES through an SNS topic)." },
    publicKey: {
      type: 'string',
      minLength: 1,
      maxLength: 2_000,
      description: 'SendGrid only, and required: the verification key SendGrid shows for the signed event webhook (base64, or PEM).',
    },
    topicArn: {
      type: 'string',
      minLength: 1,
      maxLength: 300,
      description: "SNS only: the topic whose messages are taken; without it, any topic that knows the receiver's URL.",
    },
  },
} as const;

const receiverFields = {
  id: { type: 'string' },
  kind: { type: 'string', enum: RECEIVER_KINDS },
  topicArn: { type: ['string', 'null'] },
  createdAt: { type: 'string', format: 'date-time' },
} as const;

export const createdReceiverSchema = {
  type: 'object',
  required: ['id', 'kind', 'url', 'topicArn', 'createdAt'],
  additionalProperties: false,
  properties: {
    ...receiverFields,
    url: {
      type: 'string',
      description: 'Where the ESP posts: its last part is a secret that lets anyone who has it post, shown in this answer only.',
    },
  },
} as const;

export const receiverInfoSchema = {
  type: 'object',
  required: ['id', 'kind', 'topicArn', 'createdAt', 'publicKey', 'confirmedAt', 'lastEventAt'],
  additionalProperties: false,
  properties: {
    ...receiverFields,
    publicKey: { type: ['string', 'null'], description: 'SendGrid: the public key posts must be signed with (base64 DER).' },
    confirmedAt: { type: ['string', 'null'], format: 'date-time', description: 'SNS: when the subscription was last confirmed.' },
    lastEventAt: { type: ['string', 'null'], format: 'date-time', description: 'When a post last brought evidence.' },
  },
} as const;

export const receiverListSchema = {
  type: 'object',
  required: ['receivers'],
  additionalProperties: false,
  properties: { receivers: { type: 'array', items: receiverInfoSchema } },
} as const;

const countFields = {
  received: { type: 'integer', description: 'Events read from the post.' },
  added: { type: 'integer', description: 'Of those, events the account did not hold yet.' },
  skipped: { type: 'integer', description: 'Entries that were no bounce, delivery, complaint or deferral (opens, clicks, …).' },
} as const;

export const receivedEventsSchema = {
  type: 'object',
  required: ['received', 'added', 'skipped'],
  additionalProperties: false,
  properties: countFields,
} as const;

export const receivedSnsSchema = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'] },
    confirmed: { type: 'boolean', description: 'SubscriptionConfirmation: the subscription was confirmed.' },
    ...countFields,
  },
} as const;

export type ReceiverKind = (typeof RECEIVER_KINDS)[number];
export type CreateReceiverRequest = FromSchema<typeof createReceiverRequestSchema>;
export type CreatedReceiver = FromSchema<typeof createdReceiverSchema>;
export type ReceiverInfo = FromSchema<typeof receiverInfoSchema>;
