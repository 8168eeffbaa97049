import { VERDICTS } from '../../engine/types.js';
import { errorResponses } from './problem.js';
import { idempotencyHeadersSchema, verificationResultSchema } from './verification.js';

/** docs/api.md: the most emails one bulk request may carry (more → 413). */
export const MAX_BULK_EMAILS = 50_000;

const jobStatusSchema = { type: 'string', enum: ['processing', 'completed'] } as const;

/** What the progress and the job responses both say about a job, beside its id. */
const jobStateFields = {
  status: jobStatusSchema,
  total: { type: 'integer' },
  processed: { type: 'integer' },
} as const;

const jobParamsSchema = {
  type: 'object',
  required: ['job_id'],
  properties: { job_id: { type: 'string', minLength: 1, description: 'The `jobId` returned at submission.' } },
} as const;

export const submitBulkSchema = {
  summary: 'Submit a bulk job (costs 1 token per email after de-duplication)',
  headers: idempotencyHeadersSchema,
  body: {
    type: 'object',
    required: ['emails'],
    additionalProperties: false,
    properties: {
      emails: { type: 'array', minItems: 1, maxItems: MAX_BULK_EMAILS, items: { type: 'string' } },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['jobId', 'queued'],
      properties: { jobId: { type: 'string' }, queued: { type: 'integer' } },
    },
    ...errorResponses('invalid_request', 'insufficient_tokens', 'idempotency_conflict', 'payload_too_large', 'unsupported_media_type'),
  },
} as const;

export const progressSchema = {
  summary: 'Poll the progress of a bulk job',
  params: jobParamsSchema,
  response: {
    200: {
      type: 'object',
      required: ['job_id', 'status', 'total', 'processed', 'progress_percent'],
      properties: {
        job_id: { type: 'string' },
        ...jobStateFields,
        progress_percent: { type: 'integer', minimum: 0, maximum: 100 },
      },
    },
    ...errorResponses('not_found'),
  },
} as const;

/** The most results one page holds (`?limit=`). */
export const MAX_PAGE_RESULTS = 10_000;

const verdictList = `(${VERDICTS.join('|')})`;

/**
 * Optional narrowing of a job's results: by verdict, and in pages for clients that would rather
 * not take a long list in one answer. Query values are strings (no coercion): the patterns are the
 * whole check, so a bad value is a 400 before the route runs.
 */
const jobQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    result: {
      type: 'string',
      pattern: `^${verdictList}(,${verdictList})*$`,
      description: `Only results with these verdicts, comma-separated (${VERDICTS.join(', ')}).`,
    },
    limit: {
      type: 'string',
      pattern: '^([1-9][0-9]{0,3}|10000)$',
      description: `A page of at most this many results (1 to ${MAX_PAGE_RESULTS}); the answer then carries \`next_cursor\`.`,
    },
    cursor: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,24}$',
      description: 'The `next_cursor` of the previous page: the page after it.',
    },
  },
} as const;

export const jobSchema = {
  summary: 'Get a bulk job with the results so far (all of them, or a page)',
  params: jobParamsSchema,
  querystring: jobQuerySchema,
  response: {
    200: {
      type: 'object',
      required: ['id', 'status', 'total', 'processed', 'results'],
      properties: {
        id: { type: 'string' },
        ...jobStateFields,
        results: { type: 'array', items: verificationResultSchema },
        next_cursor: {
          type: ['string', 'null'],
          description: 'With `limit` or `cursor`: where the next page starts; null after the last page.',
        },
      },
    },
    ...errorResponses('invalid_request', 'not_found'),
  },
} as const;
