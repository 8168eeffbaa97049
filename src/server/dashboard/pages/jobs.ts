import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ResultIndex } from '../../../csv/result-index.js';
import { writeResults } from '../../../csv/result-writer.js';
import { VERDICTS, type Verdict, type VerificationResult } from '../../../engine/types.js';
import { ProblemError } from '../../errors.js';
import { progressPercent } from '../../routes/bulk.js';
import { openUploadedList, withListFile } from '../list-files.js';
import type { DashboardConfig } from '../config.js';
import { renderPage } from '../render.js';
import { signedIn } from '../signed-in.js';

/** Results listed on the job page; the download has them all. */
const RESULTS_SHOWN = 200;
/** While a job runs, its page reloads itself this often (a meta refresh: no script needed). */
const REFRESH_SECONDS = 2;

const jobParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } };
const downloadQuery = { type: 'object', properties: { only: { type: 'string', enum: [...VERDICTS] } } };

export interface VerdictCount {
  verdict: Verdict;
  count: number;
}

export function breakdown(results: VerificationResult[]): VerdictCount[] {
  return VERDICTS.map((verdict) => ({ verdict, count: results.filter((result) => result.result === verdict).length }));
}

/** A file name for the download: the upload's, with a suffix, reduced to what every browser and shell takes. */
function downloadName(fileName: string | null, only: Verdict | undefined): string {
  const base = (fileName ?? 'results').replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_').slice(0, 80) || 'results';
  return `${base}-${only ?? 'verified'}.csv`;
}

export function jobPages(app: FastifyInstance, { store }: DashboardConfig): void {
  // Another user's job is as unknown as a missing one.
  const noSuchJob = () => new ProblemError('not_found', 'No such job.');

  async function jobOf(userId: number, jobId: string) {
    const found = await store.getJobWithResults(userId, jobId);
    if (!found) throw noSuchJob();
    return found;
  }

  app.get<{ Params: { id: string } }>('/jobs/:id', { schema: { params: jobParams } }, async (request, reply) => {
    const userId = signedIn(request).user.id;
    // While the job runs the page reloads every few seconds: it reads the progress alone, not
    // every result so far (a 50,000-address job would be read whole at each reload).
    const progress = await store.getJob(userId, request.params.id);
    if (!progress) throw noSuchJob();
    const { job, results } = progress.status === 'completed' ? await jobOf(userId, progress.id) : { job: progress, results: [] };
    const upload = await store.findUploadOfJob(userId, job.id);
    return renderPage(request, reply, 'job', {
      title: upload ? `Job: ${upload.fileName}` : 'Job',
      job,
      percent: progressPercent(job),
      breakdown: breakdown(results),
      results: results.slice(0, RESULTS_SHOWN),
      refreshSeconds: job.status === 'processing' ? REFRESH_SECONDS : 0,
    });
  });

  // The original rows with the verdict columns appended (the CLI's merge-back), or for a job sent
  // through the API, one row per address; all rows or one verdict's.
  app.get<{ Params: { id: string }; Querystring: { only?: Verdict } }>(
    '/jobs/:id/download',
    { schema: { params: jobParams, querystring: downloadQuery } },
    async (request, reply) => {
      const userId = signedIn(request).user.id;
      const { job, results } = await jobOf(userId, request.params.id);
      if (job.status !== 'completed') throw new ProblemError('not_found', 'The job is still running: the download is ready once it completes.');
      const upload = await store.findUploadOfJob(userId, job.id);
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
