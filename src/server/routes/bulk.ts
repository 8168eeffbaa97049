import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './app-config.js';
import { currentUser } from '../auth/guard.js';
import { insufficientTokens } from '../http/errors.js';
import { idempotencyKey, markReplayed, unlessConflicting } from '../http/idempotency.js';
import { deleteJobSchema, jobSchema, listJobsSchema, progressSchema, submitBulkSchema } from '../schemas/bulk.js';
import { jobListCursor, jobListPlace } from './job-list-cursor.js';
import { jobResultsStream, selectionOf } from './job-results.js';
import { progressPercent } from '../services/job-progress.js';
import type { JobProgress, JobSummary } from '../store/store.js';
import { addressKey } from '../../engine/checks/address-key.js';
import { callerJob, isTestCaller, noSuchJob } from './sandbox.js';

const ROUTE = 'POST /v1/bulk-verify';

/** Trimmed and de-duplicated by addressKey (ASCII letters in any case), first spelling and order kept (docs/api.md). */
export function distinctEmails(emails: string[]): string[] {
  const byKey = new Map<string, string>();
  for (const raw of emails) {
    const key = addressKey(raw);
    if (!byKey.has(key)) byKey.set(key, raw.trim());
  }
  return [...byKey.values()];
}

/** A job as `GET /v1/bulk-verify` lists it: its progress, as the progress route answers it, and when it was made. */
function progressOf(job: JobProgress) {
  return {
    job_id: job.id,
    ...(job.name === null ? {} : { name: job.name }),
    status: job.status,
    total: job.total,
    processed: job.processed,
    progress_percent: progressPercent(job),
    ...(job.waiting === 0 ? {} : { waiting: job.waiting, nextAttemptAt: job.nextAttemptAt! }),
  };
}

const listed = (job: JobSummary) => ({ ...progressOf(job), createdAt: job.createdAt });

/** Jobs in a page of the list unless `?limit=` says otherwise. */
const LISTED_JOBS = 20;

export function bulkRoutes(scope: FastifyInstance, { store, onJobCreated }: AppConfig): void {
  // Bodies, params and queries typed from the route schemas (src/wire/contract.ts), not written again here.
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/bulk-verify', { schema: submitBulkSchema }, async (request, reply) => {
    const user = currentUser(request);
    const key = idempotencyKey(request, ROUTE);
    // Charge, job, items and the idempotency record in one transaction: all or nothing, and a
    // repeat of the key finds the first job in there, however close behind it came.
    const created = await unlessConflicting(() =>
      store.jobs.createJob(user.id, distinctEmails(request.body.emails), key, {
        name: request.body.name,
        fresh: request.body.fresh,
        settleWithinSeconds: request.body.settleWithin,
        sandbox: isTestCaller(request),
      }),
    );
    if (!created.ok) throw insufficientTokens(created);
    if (created.replayed) markReplayed(reply);
    else onJobCreated();
    return { jobId: created.jobId, queued: created.queued };
  });

  // The caller's jobs, newest first, a page at a time (docs/api.md "Routes"): a lost job id found again.
  app.get('/v1/bulk-verify', { schema: listJobsSchema }, async (request) => {
    const limit = request.query.limit === undefined ? LISTED_JOBS : Number(request.query.limit);
    const after = request.query.cursor === undefined ? undefined : jobListPlace(request.query.cursor);
    // One more than the page: whether there is a next page, without a count. A test token sees only
    // sandbox jobs, a live one only live jobs (docs/api.md "Sandbox").
    const jobs = await store.jobs.listJobs(currentUser(request).id, limit + 1, after, isTestCaller(request));
    const page = jobs.slice(0, limit);
    return { jobs: page.map(listed), next_cursor: jobs.length > limit ? jobListCursor(page.at(-1)!) : null };
  });

  app.get('/v1/bulk-verify/:job_id/progress', { schema: progressSchema }, async (request) => {
    const job = await callerJob(store.jobs, request, request.params.job_id);
    return progressOf(job);
  });

  app.get('/v1/bulk-verify/:job_id', { schema: jobSchema }, async (request, reply) => {
    const selection = selectionOf(request.query);
    const job = await callerJob(store.jobs, request, request.params.job_id);
    // Streamed, not serialised from the schema (the rows are the interface's objects as stored): the
    // stream is no value of the schema's type, which only describes the bytes it writes.
    return reply.type('application/json; charset=utf-8').send(jobResultsStream(store.jobs, job, selection) as never);
  });

  // Data leaves when asked (docs/api.md "Deleting a job"): a job the token may not read is a 404, as for reading it.
  app.delete('/v1/bulk-verify/:job_id', { schema: deleteJobSchema }, async (request, reply) => {
    await callerJob(store.jobs, request, request.params.job_id);
    if (!(await store.jobs.deleteJob(currentUser(request).id, request.params.job_id))) throw noSuchJob(request.params.job_id);
    return reply.code(204).send(null);
  });
}
