import {
  createdReceiverSchema,
  createReceiverRequestSchema,
  receivedEventsSchema,
  receivedSnsSchema,
  receiverListSchema,
} from '../../wire/evidence-receivers.js';
import { errorResponses } from './problem.js';

export const createReceiverSchema = {
  summary: "Create an evidence receiver for SendGrid's signed event webhook or SES through SNS; its URL is shown only in this response",
  body: createReceiverRequestSchema,
  response: {
    201: createdReceiverSchema,
    ...errorResponses('invalid_request', 'evidence_receiver_limit', 'payload_too_large', 'unsupported_media_type'),
  },
} as const;

export const listReceiversSchema = {
  summary: 'List your evidence receivers (never their URLs)',
  response: { 200: receiverListSchema },
} as const;

export const removeReceiverSchema = {
  summary: 'Delete an evidence receiver: its URL is refused from then on',
  params: {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string', minLength: 1, description: "The receiver's `id`." } },
  },
  response: {
    204: { type: 'null', description: 'Deleted.' },
    ...errorResponses('not_found'),
  },
} as const;

const hookParams = {
  type: 'object',
  required: ['secret'],
  properties: { secret: { type: 'string', minLength: 1, description: "The secret at the end of the receiver's URL." } },
} as const;

/** What every post to a receiver may be answered with besides its success. */
const hookErrors = errorResponses('invalid_request', 'unauthorized', 'bad_signature', 'not_found', 'payload_too_large', 'rate_limited');

export const sendgridHookSchema = {
  summary: "SendGrid's signed event webhook posts here (ECDSA signature checked; no bearer token)",
  params: hookParams,
  security: [],
  response: { 200: receivedEventsSchema, ...hookErrors },
} as const;

export const snsHookSchema = {
  summary: 'SNS posts SES notifications and subscription confirmations here (signature checked against SNS; no bearer token)',
  params: hookParams,
  security: [],
  response: { 200: receivedSnsSchema, ...hookErrors, ...errorResponses('forbidden', 'esp_unreachable') },
} as const;
