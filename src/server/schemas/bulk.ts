import { VERDICTS } from '../../engine/core/types.js';
import { errorResponses } from './problem.js';
import { bulkAckSchema, bulkRequestSchema, jobListSchema, jobPageSchema, jobProgressSchema } from '../../wire/contract.js';
import { idempotencyHeadersSchema } from './verification.js';

const jobParamsSchema = {
  type: 'object',
  required: ['job_id'],
  properties: { job_id: { type: 'string', minLength: 1, description: 'The `jobId` returned at submission.' } },
} as const;

export const submitBulkSchema = {
  summary: 'Submit a bulk job (costs 1 token per email after de-duplication)',
  headers: idempotencyHeadersSchema,
  body: bulkRequestSchema,
  response: {
    200: bulkAckSchema,
    ...errorResponses('invalid_request', 'insufficient_tokens', 'idempotency_conflict', 'payload_too_large', 'unsupported_media_type'),
  },
} as const;

export const progressSchema = {
  summary: 'Poll the progress of a bulk job',
  params: jobParamsSchema,
  response: {
    200: jobProgressSchema,
    ...errorResponses('not_found'),
  },
} as const;

/** The most results one page holds (`?limit=`). */
const MAX_PAGE_RESULTS = 10_000;

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
    200: jobPageSchema,
    ...errorResponses('invalid_request', 'not_found'),
  },
} as const;

export const deleteJobSchema = {
  summary:
    'Delete a bulk job: its addresses and results are gone (the ledger keeps its amounts); a job still processing stops and its unverified addresses are refunded',
  params: jobParamsSchema,
  response: {
    204: { type: 'null', description: 'Deleted.' },
    ...errorResponses('not_found'),
  },
} as const;

/** The most jobs one page of the list holds (`?limit=`). */
export const MAX_LISTED_JOBS = 100;

export const listJobsSchema = {
  summary: "List the caller's bulk jobs, newest first, a page at a time",
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: {
        type: 'string',
        pattern: '^([1-9][0-9]?|100)$',
        description: `At most this many jobs (1 to ${MAX_LISTED_JOBS}, default 20).`,
      },
      cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$', description: 'The `next_cursor` of the previous page: the page after it.' },
    },
  },
  response: {
    200: jobListSchema,
    ...errorResponses('invalid_request'),
  },
} as const;
