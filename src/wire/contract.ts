import type { FromSchema } from 'json-schema-to-ts';
import { REASON_CODE_NAMES } from '../engine/core/reason-codes.js';
import { BEYOND_FORMAT, VERDICTS } from '../engine/core/types.js';

/**
 * The bodies of the HTTP API (docs/api.md), as JSON schemas written once: the service's routes
 * validate and serialise with them (src/server/schemas adds each route's summary, headers and
 * errors) and the OpenAPI document is made of them; the client's types (src/client/types.ts) are
 * derived from them with FromSchema. Neither side imports the other: both import this.
 */

/** The most emails one bulk request may carry (more is a 413); the CLI splits longer lists into several jobs. */
export const MAX_BULK_EMAILS = 50_000;

/** The interface's `checks` object (docs/api.md "Resources"), field for field. */
const checksSchema = {
  type: 'object',
  required: ['format', 'domainExists', 'hasMx', 'domainReachable', 'smtpStatus', 'isDisposable', 'isRole', 'isBlacklisted', 'isKnownProvider', 'isCatchAll'],
  additionalProperties: false,
  properties: {
    format: { type: 'boolean' },
    domainExists: { type: 'boolean' },
    hasMx: { type: 'boolean' },
    domainReachable: { type: 'boolean' },
    smtpStatus: { type: 'string', enum: ['valid', 'invalid', 'unknown'] },
    isDisposable: { type: 'boolean' },
    isRole: { type: 'boolean' },
    isBlacklisted: { type: 'boolean' },
    isKnownProvider: { type: 'boolean' },
    isCatchAll: { type: 'boolean' },
  },
} as const;

/**
 * The verification result (docs/api.md "Resources"): single responses and every entry of a bulk job's results. The
 * contract's four fields, and additional ones: `reasonCode` always, `notEstablished` and
 * `suggestion` only when there are, `verifiedAt` only on a reused verdict, `nextAttemptAt` only
 * while a bulk job's address waits for its next try.
 */
export const verificationResultSchema = {
  type: 'object',
  required: ['email', 'result', 'checks', 'reason', 'reasonCode'],
  additionalProperties: false,
  properties: {
    email: { type: 'string' },
    result: { type: 'string', enum: [...VERDICTS] },
    checks: checksSchema,
    reason: { type: 'string' },
    reasonCode: { type: 'string', enum: REASON_CODE_NAMES, description: 'Why, as a stable code (docs/providers.md lists them); `reason` says it in words.' },
    notEstablished: {
      type: 'array',
      items: { type: 'string', enum: ['format', ...BEYOND_FORMAT] },
      description: 'Checks whose `false` is no finding: they could not be established (DNS failed, the domain was not looked up, the probe got no answer).',
    },
    suggestion: { type: 'string', description: 'The address with a likely typo in its domain corrected ("did you mean").' },
    verifiedAt: {
      type: 'string',
      format: 'date-time',
      description:
        "When the verdict was found, on a result reused from a recent verification (the result cache) rather than asked afresh: exact when your own request found it, the day (UTC midnight) when another account's did.",
    },
    nextAttemptAt: {
      type: 'string',
      format: 'date-time',
      description:
        'In a bulk job still processing: the answer so far was temporary (greylisting, throttling), so `result` is `unknown` for now and the address is asked again at this time.',
    },
    evidence: {
      type: 'object',
      required: ['kind', 'at', 'source'],
      additionalProperties: false,
      description: "The account's own event that decided the verdict (reason codes `bounced`, `delivered`; docs/evidence.md): absent when none did.",
      properties: { kind: { type: 'string', enum: ['bounce', 'delivery'] }, at: { type: 'string', format: 'date-time' }, source: { type: 'string' } },
    },
    sandbox: {
      type: 'boolean',
      enum: [true],
      description:
        'An answer of the sandbox: asked with a test token (`mv_test_…`), from the local part alone, no server asked, nothing charged (docs/api.md "Sandbox").',
    },
  },
} as const;

/** `"explain": true` on `POST /v1/verify`: the result carries `details`, how its verdict was reached. */
export const explainProperty = {
  type: 'boolean',
  description:
    'Answer with `details`: the mail hosts tried, the egress, every SMTP line sent and received with its time (ms from the start), and what was reused. Single verifications only.',
} as const;

/** `details` of an explained result (src/engine/core/transcript.ts): this request's own dialogue, nothing of anyone else's. */
const explanationSchema = {
  type: 'object',
  required: ['mxHosts', 'connections', 'transcript', 'notes'],
  additionalProperties: false,
  properties: {
    mxHosts: {
      type: 'array',
      description: "The domain's mail hosts in preference order, as resolved.",
      items: {
        type: 'object',
        required: ['host', 'address'],
        additionalProperties: false,
        properties: { host: { type: 'string' }, address: { type: 'string' } },
      },
    },
    connections: {
      type: 'array',
      description: 'Each connection attempt: the host, the egress it went out through (a proxy named without credentials), and `connected` or why not.',
      items: {
        type: 'object',
        required: ['ms', 'host', 'address', 'egress', 'outcome'],
        additionalProperties: false,
        properties: { ms: { type: 'integer' }, host: { type: 'string' }, address: { type: 'string' }, egress: { type: 'string' }, outcome: { type: 'string' } },
      },
    },
    transcript: {
      type: 'array',
      description: 'Every SMTP line, in order: what we sent and what the server answered, `ms` after the verification started.',
      items: {
        type: 'object',
        required: ['ms', 'dir', 'line'],
        additionalProperties: false,
        properties: { ms: { type: 'integer' }, dir: { type: 'string', enum: ['sent', 'received'] }, line: { type: 'string' } },
      },
    },
    notes: {
      type: 'array',
      items: { type: 'string' },
      description: "What was reused rather than asked now (a recent verdict, the domain's catch-all finding).",
    },
  },
} as const;

/** A single verification's result: with `details` when `explain` was asked. */
export const explainedResultSchema = {
  ...verificationResultSchema,
  properties: { ...verificationResultSchema.properties, details: explanationSchema },
} as const;

/** `"fresh": true` in a request body: ask the mail host again, reuse no recent verdict. */
export const freshProperty = { type: 'boolean', description: 'Ask afresh: no recent verdict is reused (the result cache).' } as const;

export const bulkRequestSchema = {
  type: 'object',
  required: ['emails'],
  additionalProperties: false,
  properties: {
    emails: { type: 'array', minItems: 1, maxItems: MAX_BULK_EMAILS, items: { type: 'string' } },
    name: { type: 'string', maxLength: 200, description: "What to call the job (the CLI sends the list's file name); shown in progress and the dashboard." },
    fresh: freshProperty,
    settleWithin: {
      type: 'integer',
      minimum: 0,
      maximum: 604_800,
      description:
        'Seconds after submission past which no address is asked again: addresses still waiting for their next try (greylisting, throttling) then settle `unknown` at once. Without it, the retry schedule decides (about an hour).',
    },
  },
} as const;

export const bulkAckSchema = {
  type: 'object',
  required: ['jobId', 'queued'],
  additionalProperties: false,
  properties: { jobId: { type: 'string' }, queued: { type: 'integer' } },
} as const;

const jobStatusSchema = { type: 'string', enum: ['processing', 'completed'] } as const;

/** What the progress and the job answers both say about a job, beside its id. */
const jobStateFields = {
  status: jobStatusSchema,
  total: { type: 'integer' },
  processed: { type: 'integer' },
} as const;

export const jobProgressSchema = {
  type: 'object',
  required: ['job_id', 'status', 'total', 'processed', 'progress_percent'],
  additionalProperties: false,
  properties: {
    job_id: { type: 'string' },
    name: { type: 'string', description: 'The name given at submission, when one was.' },
    ...jobStateFields,
    progress_percent: { type: 'integer', minimum: 0, maximum: 100 },
    waiting: {
      type: 'integer',
      description:
        'Addresses whose answer so far was temporary (greylisting, throttling), waiting for their next try; not counted in `processed`. Only while there are.',
    },
    nextAttemptAt: { type: 'string', format: 'date-time', description: 'When the earliest waiting address is asked again. Only while some wait.' },
  },
} as const;

/** One job of the caller's list (`GET /v1/bulk-verify`): what finds a lost job id again. */
export const jobListEntrySchema = {
  type: 'object',
  required: ['job_id', 'status', 'total', 'processed', 'progress_percent', 'createdAt'],
  additionalProperties: false,
  properties: {
    ...jobProgressSchema.properties,
    createdAt: { type: 'string', format: 'date-time' },
  },
} as const;

/** A page of the caller's jobs, newest first. */
export const jobListSchema = {
  type: 'object',
  required: ['jobs', 'next_cursor'],
  additionalProperties: false,
  properties: {
    jobs: { type: 'array', items: jobListEntrySchema },
    next_cursor: { type: ['string', 'null'], description: 'Where the next page starts (`?cursor=`); null after the last page.' },
  },
} as const;

export const jobPageSchema = {
  type: 'object',
  required: ['id', 'status', 'total', 'processed', 'results'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    ...jobStateFields,
    results: { type: 'array', items: verificationResultSchema },
    next_cursor: {
      type: ['string', 'null'],
      description: 'With `limit` or `cursor`: where the next page starts; null after the last page.',
    },
  },
} as const;

/**
 * What an API token may do (docs/api.md "Token scopes"): `verify` single addresses, submit and
 * delete `bulk` jobs, read jobs' `results`, manage the `account` (tokens, webhooks), import, read
 * and delete the account's `evidence` (its own bounces and deliveries). A token created without a
 * list gets them all; a login JWT always has them all.
 */
export const API_SCOPES = ['verify', 'bulk', 'results', 'account', 'evidence'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/** The longest `expiresIn` taken, in seconds: ten years. */
export const MAX_TOKEN_LIFETIME_SECONDS = 10 * 366 * 24 * 3600;

const scopesSchema = {
  type: 'array',
  items: { type: 'string', enum: API_SCOPES },
  description: 'What the token may do: `verify`, `bulk`, `results`, `account`.',
} as const;

export const accountBodySchema = {
  type: 'object',
  required: ['email', 'balance', 'rateLimit'],
  additionalProperties: false,
  properties: {
    email: { type: 'string' },
    balance: { type: 'integer' },
    refundUnknown: {
      type: 'boolean',
      description: 'This service gives back the tokens of `unknown` results (when a job completes; a single verification at once).',
    },
    rateLimit: {
      type: 'object',
      required: ['limit', 'windowSeconds'],
      additionalProperties: false,
      properties: { limit: { type: 'integer' }, windowSeconds: { type: 'integer' } },
    },
    token: {
      type: 'object',
      required: ['kind', 'id', 'name', 'scopes', 'expiresAt'],
      additionalProperties: false,
      description: 'The token this request was sent with: what it may do and until when.',
      properties: {
        kind: { type: 'string', enum: ['api', 'login'], description: '`api`: an `mv_` token; `login`: a JWT from /v1/auth/login (every scope).' },
        id: { type: ['string', 'null'], description: "The API token's id; null for a login." },
        name: { type: ['string', 'null'] },
        scopes: scopesSchema,
        expiresAt: { type: ['string', 'null'], format: 'date-time' },
        test: { type: 'boolean', description: 'A test token: answered by the sandbox (docs/api.md "Sandbox").' },
      },
    },
  },
} as const;

export const loginRequestSchema = {
  type: 'object',
  required: ['email', 'password'],
  additionalProperties: false,
  properties: { email: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1 } },
} as const;

export const loginResponseSchema = {
  type: 'object',
  required: ['token', 'tokenType', 'expiresAt'],
  additionalProperties: false,
  properties: {
    token: { type: 'string' },
    tokenType: { type: 'string', enum: ['Bearer'] },
    expiresAt: { type: 'string', format: 'date-time' },
  },
} as const;

/** RFC 8628's grant type, the `grant_type` of a device's poll. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

export const deviceAuthorizationRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    client_name: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'What the device calls itself: shown on the approval page, and the name of the token it gets.',
    },
    scopes: { ...scopesSchema, minItems: 1, uniqueItems: true, description: 'What the token may do; every scope when left out.' },
  },
} as const;

export const deviceAuthorizationSchema = {
  type: 'object',
  required: ['device_code', 'user_code', 'verification_uri', 'verification_uri_complete', 'interval', 'expires_in'],
  additionalProperties: false,
  properties: {
    device_code: { type: 'string', description: "The device's secret, for polling; never shown to anyone." },
    user_code: { type: 'string', description: 'What the person types on the approval page: `XXXX-XXXX`.' },
    verification_uri: { type: 'string', description: 'The approval page.' },
    verification_uri_complete: { type: 'string', description: 'The approval page with the code filled in.' },
    interval: { type: 'integer', description: 'Seconds to wait between polls.' },
    expires_in: { type: 'integer', description: 'Seconds until the codes expire.' },
  },
} as const;

export const deviceTokenRequestSchema = {
  type: 'object',
  properties: {
    grant_type: { type: 'string', description: `\`${DEVICE_CODE_GRANT_TYPE}\`` },
    device_code: { type: 'string' },
    client_id: { type: 'string', description: 'Ignored: any client may ask.' },
  },
} as const;

export const deviceTokenSchema = {
  type: 'object',
  required: ['access_token', 'token_type', 'scope', 'token_id'],
  additionalProperties: false,
  properties: {
    access_token: { type: 'string', description: 'A new `mv_` API token of the account that approved; in this answer only.' },
    token_type: { type: 'string', enum: ['Bearer'] },
    scope: { type: 'string', description: "The token's scopes, space-separated." },
    token_id: { type: 'string', description: "The token's id (`DELETE /v1/tokens/{id}` revokes it)." },
  },
} as const;

/** RFC 8628 §3.5's answers to a poll that gets no token, and RFC 6749's for a malformed one. */
const DEVICE_TOKEN_ERRORS = [
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
  'invalid_grant',
  'invalid_request',
  'unsupported_grant_type',
] as const;
export type DeviceTokenError = (typeof DEVICE_TOKEN_ERRORS)[number];

export const oauthErrorSchema = {
  type: 'object',
  required: ['error', 'error_description'],
  additionalProperties: false,
  properties: {
    error: { type: 'string', enum: DEVICE_TOKEN_ERRORS },
    error_description: { type: 'string' },
    interval: { type: 'integer', description: 'With `slow_down`: the interval now in force, in seconds.' },
  },
} as const;

const tokenFields = {
  id: { type: 'string' },
  name: { type: 'string' },
  createdAt: { type: 'string', format: 'date-time' },
  scopes: scopesSchema,
  expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'When the token stops working; null: never.' },
  test: {
    type: 'boolean',
    description: 'A test token (`mv_test_…`): answered by the sandbox, charged nothing, sees only sandbox jobs (docs/api.md "Sandbox").',
  },
} as const;

export const createTokenRequestSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    scopes: { ...scopesSchema, minItems: 1, uniqueItems: true, description: 'What the token may do (at least one); every scope when left out.' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the token stops working, in the future. Not with `expiresIn`.' },
    expiresIn: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TOKEN_LIFETIME_SECONDS,
      description: 'Seconds from now until the token stops working (90 days: 7776000). Not with `expiresAt`. Neither: the token never expires.',
    },
    test: {
      type: 'boolean',
      description:
        'Make a test token (`mv_test_…`, docs/api.md "Sandbox"): its verifications and bulk jobs are answered by the sandbox, by local part, with no mail server asked and nothing charged. A test token makes only test tokens. Default false.',
    },
  },
} as const;

export const createdTokenSchema = {
  type: 'object',
  required: ['id', 'name', 'token', 'createdAt', 'scopes', 'expiresAt', 'test'],
  additionalProperties: false,
  properties: { ...tokenFields, token: { type: 'string' } },
} as const;

const tokenInfoSchema = {
  type: 'object',
  required: ['id', 'name', 'createdAt', 'lastUsedAt', 'scopes', 'expiresAt', 'test'],
  additionalProperties: false,
  properties: { ...tokenFields, lastUsedAt: { type: ['string', 'null'], format: 'date-time' } },
} as const;

export const tokenListSchema = {
  type: 'object',
  required: ['tokens'],
  additionalProperties: false,
  properties: { tokens: { type: 'array', items: tokenInfoSchema } },
} as const;

const webhookFields = {
  id: { type: 'string' },
  url: { type: 'string', description: 'Where events are POSTed, signed per Standard Webhooks 1.0.' },
  description: { type: ['string', 'null'] },
  createdAt: { type: 'string', format: 'date-time' },
} as const;

export const createWebhookRequestSchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2_000, description: 'An http(s) URL; one on a loopback, private or metadata network is refused.' },
    description: { type: 'string', maxLength: 200 },
  },
} as const;

export const createdWebhookSchema = {
  type: 'object',
  required: ['id', 'url', 'description', 'secret', 'createdAt'],
  additionalProperties: false,
  properties: {
    ...webhookFields,
    secret: { type: 'string', description: 'The signing secret (`whsec_…`), shown in this answer only: keep it to verify deliveries.' },
  },
} as const;

const webhookAttemptSchema = {
  type: 'object',
  required: ['eventId', 'at', 'status', 'latencyMs', 'error'],
  additionalProperties: false,
  properties: {
    eventId: { type: 'string', description: "The event's `webhook-id`." },
    at: { type: 'string', format: 'date-time' },
    status: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when there was none." },
    latencyMs: { type: 'integer' },
    error: { type: ['string', 'null'], description: 'Why there was no status (refused, timed out, cut off).' },
  },
} as const;

const webhookInfoSchema = {
  type: 'object',
  required: ['id', 'url', 'description', 'createdAt', 'disabled', 'disabledReason', 'attempts'],
  additionalProperties: false,
  properties: {
    ...webhookFields,
    disabled: {
      type: 'boolean',
      description: 'True once the receiver answered 410 Gone, or no delivery to it succeeded for 5 days: nothing more is sent to it.',
    },
    disabledReason: { type: ['string', 'null'], description: 'Why the endpoint was disabled, in words; null while it is not.' },
    attempts: { type: 'array', items: webhookAttemptSchema, description: 'The newest attempts first (at most 5).' },
  },
} as const;

export const webhookListSchema = {
  type: 'object',
  required: ['webhooks'],
  additionalProperties: false,
  properties: { webhooks: { type: 'array', items: webhookInfoSchema } },
} as const;

export const webhookTestSchema = {
  type: 'object',
  required: ['eventId'],
  additionalProperties: false,
  properties: { eventId: { type: 'string', description: 'The `webhook-id` the test event is delivered with.' } },
} as const;

export type BulkSubmission = FromSchema<typeof bulkAckSchema>;
export type JobProgress = FromSchema<typeof jobProgressSchema>;
export type JobStatus = JobProgress['status'];
export type JobList = FromSchema<typeof jobListSchema>;
export type Account = FromSchema<typeof accountBodySchema>;
export type LoginResponse = FromSchema<typeof loginResponseSchema>;
export type CreatedToken = FromSchema<typeof createdTokenSchema>;
export type DeviceAuthorization = FromSchema<typeof deviceAuthorizationSchema>;
export type DeviceToken = FromSchema<typeof deviceTokenSchema>;
export type TokenInfo = FromSchema<typeof tokenInfoSchema>;
export type CreateTokenRequest = FromSchema<typeof createTokenRequestSchema>;
export type CreatedWebhook = FromSchema<typeof createdWebhookSchema>;
export type WebhookInfo = FromSchema<typeof webhookInfoSchema>;
export type WebhookTest = FromSchema<typeof webhookTestSchema>;
