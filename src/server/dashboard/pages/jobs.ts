import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ResultIndex } from '../../../csv/result-index.js';
import { writeResults } from '../../../csv/result-writer.js';
import { VERDICTS, type Verdict, type VerificationResult } from '../../../engine/core/types.js';
import { ProblemError } from '../../http/errors.js';
import { jobProgress } from '../../services/job-progress.js';
import { openUploadedList, withListFile } from '../common/list-files.js';
import type { VerdictCount } from '../../store/store.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { VERIFIER_CONDITIONS } from '../../../engine/core/reason-codes.js';
import { signedIn } from '../common/signed-in.js';
import { keepForNextPage } from '../common/shown-once.js';
import { DELETED_JOB, type DeletedJob } from '../common/deleted-job.js';

/** Results listed on the job page; the download has them all. */
const RESULTS_SHOWN = 200;
/** While a job runs, its page reloads itself this often (a meta refresh: no script needed). */
const REFRESH_SECONDS = 2;

const jobParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } };
const downloadQuery = { type: 'object', properties: { only: { type: 'string', enum: [...VERDICTS] } } };

/** Every verdict with its count, in the order the chart shows them (verdicts with none as 0). */
function breakdown(counts: readonly VerdictCount[]): VerdictCount[] {
  return VERDICTS.map((verdict) => ({ verdict, count: counts.find((each) => each.verdict === verdict)?.count ?? 0 }));
}

/** A file name for the download: the upload's, with a suffix, reduced to what every browser and shell takes. */
function downloadName(fileName: string | null, only: Verdict | undefined): string {
  const base =
    (fileName ?? 'results')
      .replace(/\.[^.]*$/, '')
      .replace(/[^\w.-]+/g, '_')
      .slice(0, 80) || 'results';
  return `${base}-${only ?? 'verified'}.csv`;
}

export function jobPages(app: FastifyInstance, { store }: DashboardConfig): void {
  // Another user's job is as unknown as a missing one.
  const noSuchJob = () => new ProblemError('not_found', 'No such job: it may have been deleted, which removes it for good.');

  async function jobOf(userId: number, jobId: string) {
    const found = await store.jobs.getJobWithResults(userId, jobId);
    if (!found) throw noSuchJob();
    return found;
  }

  app.get<{ Params: { id: string } }>('/jobs/:id', { schema: { params: jobParams } }, async (request, reply) => {
    const userId = signedIn(request).user.id;
    // While the job runs the page reloads every few seconds: it reads the progress alone. Once it
    // completes, the counts per verdict and the first page of results: never the whole job (up
    // to 50,000 results), which only the download reads.
    const job = await jobProgress(store.jobs, userId, request.params.id);
    if (!job) throw noSuchJob();
    const [counts, page] =
      job.status === 'completed'
        ? await Promise.all([store.jobs.verdictCounts(job.id), store.jobs.readResults(job.id, { after: -1, limit: RESULTS_SHOWN })])
        : [[], []];
    const upload = await store.dashboard.findUploadOfJob(userId, job.id);
    const results = page.map((row) => JSON.parse(row.json) as VerificationResult);
    return renderPage(request, reply, 'job', {
      title: upload ? `Job: ${upload.fileName}` : job.name ? `Job: ${job.name}` : 'Job',
      job,
      percent: job.percent,
      breakdown: breakdown(counts),
      results,
      cannotVerify: cannotVerifyBanner(results),
      refreshSeconds: job.status === 'processing' ? REFRESH_SECONDS : 0,
      listOnServer: upload !== undefined,
    });
  });

  deletingJobs(app, store, noSuchJob);

  // The original rows with the verdict columns appended (the CLI's merge-back), or for a job sent
  // through the API, one row per address; all rows or one verdict's.
  app.get<{ Params: { id: string }; Querystring: { only?: Verdict } }>(
    '/jobs/:id/download',
    { schema: { params: jobParams, querystring: downloadQuery } },
    async (request, reply) => {
      const userId = signedIn(request).user.id;
      const { job, results } = await jobOf(userId, request.params.id);
      if (job.status !== 'completed') throw new ProblemError('not_found', 'The job is still running: the download is ready once it completes.');
      const upload = await store.dashboard.findUploadOfJob(userId, job.id);
      const only = request.query.only;
      const options = { format: 'csv' as const, results: new ResultIndex().add(results), ...(only ? { only: [only] } : {}) };
      // Streamed as it is written: the temp copy of the upload lives until the last row is out.
      const body = new PassThrough();
      const writing = upload
        ? withListFile(upload, async (path) => {
            const source = await openUploadedList(path, upload, upload.column ?? undefined);
            await writeResults(body, { ...options, source });
          })
        : writeResults(body, options);
      writing.catch((error: unknown) => {
        request.log.error({ err: error }, 'dashboard download failed');
        body.destroy(error as Error);
      });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${downloadName(upload?.fileName ?? null, only)}"`)
        .send(body);
    },
  );
}

/**
 * The job's addresses, results and uploaded file gone, as DELETE /v1/bulk-verify/{id} does (the form
 * carries the CSRF token, as every form). Asked first: the form's box must be ticked (`required` in
 * the browser, checked here for any client), and the lists page then says what went.
 */
function deletingJobs(app: FastifyInstance, store: DashboardConfig['store'], noSuchJob: () => ProblemError): void {
  app.post<{ Params: { id: string }; Body: { confirm?: string } }>('/jobs/:id/delete', { schema: { params: jobParams } }, async (request, reply) => {
    const userId = signedIn(request).user.id;
    const job = await store.jobs.getJob(userId, request.params.id);
    if (!job) throw noSuchJob();
    if (request.body?.confirm !== 'yes') throw new ProblemError('invalid_request', 'Nothing was deleted: tick “Yes, delete this job” to confirm.');
    const upload = await store.dashboard.findUploadOfJob(userId, job.id);
    const deleted = await store.jobs.deleteJob(userId, job.id);
    if (!deleted) throw noSuchJob();
    const notice: DeletedJob = { name: upload?.fileName ?? job.name ?? job.id, total: job.total, refunded: deleted.refunded, upload: upload !== undefined };
    keepForNextPage(request, reply, DELETED_JOB, notice);
    return reply.redirect('/lists', 303);
  });
}

/**
 * The service's own failures among the results shown (its network, not the addresses: see
 * VERIFIER_CONDITIONS), each reason once with how many rows it stands for: the page says it in one
 * banner, and those rows show only their code.
 */
export function cannotVerifyBanner(results: readonly VerificationResult[]): { reasonCode: string; reason: string; count: number }[] {
  const byCode = new Map<string, { reasonCode: string; reason: string; count: number }>();
  for (const result of results) {
    if (!VERIFIER_CONDITIONS.has(result.reasonCode)) continue;
    const seen = byCode.get(result.reasonCode) ?? { reasonCode: result.reasonCode, reason: result.reason, count: 0 };
    seen.count += 1;
    byCode.set(result.reasonCode, seen);
  }
  return [...byCode.values()];
}
