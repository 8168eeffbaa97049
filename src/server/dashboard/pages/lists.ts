import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { insufficientTokens, ProblemError } from '../../http/errors.js';
import { unlessConflicting } from '../../http/idempotency.js';
import { MAX_BULK_EMAILS } from '../../../wire/contract.js';
import type { ListUpload } from '../../store/store.js';
import { CSRF_FIELD } from '../common/csrf.js';
import { asListProblem, previewUploadedList, readUploadedList } from '../common/list-files.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { signedIn } from '../common/signed-in.js';
import { takeFromLastPage } from '../common/shown-once.js';
import { DELETED_JOB, type DeletedJob } from '../common/deleted-job.js';
import { MAX_PENDING_UPLOAD_BYTES, type UploadedFile } from '../common/upload.js';

/** Jobs listed on the lists page, newest first. */
const JOBS_SHOWN = 50;
/** Rows of the file shown in the preview. */
const PREVIEW_ROWS = 5;
/** Rows failing the syntax check shown per page of the preview (`?rejected=2` for the next). */
const REJECTED_PER_PAGE = 10;

const uploadParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } };
/** A column as the preview offers it: its 1-based number. */
const columnSpec = { type: 'string', pattern: '^[1-9][0-9]{0,3}$' };

function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).content);
}

/** Keeps an uploaded file, unless the account's lists not verified yet would hold more than MAX_PENDING_UPLOAD_BYTES with it. */
async function keepUpload(store: DashboardConfig['store'], userId: number, name: string, content: Buffer): Promise<string> {
  const id = await store.dashboard.createUpload(userId, name, content, MAX_PENDING_UPLOAD_BYTES);
  if (id !== undefined) return id;
  const mib = MAX_PENDING_UPLOAD_BYTES / 1024 / 1024;
  throw new ProblemError('payload_too_large', `Your lists not verified yet would hold over ${mib} MiB with this one: verify or delete some of them first.`);
}

function deletingUploads(app: FastifyInstance, store: DashboardConfig['store']): void {
  // A list uploaded and not verified leaves for good (the form carries the CSRF token, as every form).
  app.post<{ Params: { id: string } }>('/lists/uploads/:id/delete', { schema: { params: uploadParams } }, async (request, reply) => {
    if (!(await store.dashboard.deleteUpload(signedIn(request).user.id, request.params.id))) throw new ProblemError('not_found', 'No such uploaded list.');
    return reply.redirect('/lists', 303);
  });
}

/** Step 2 of a list: the detected column (changeable), what the list holds and what it will cost. */
function previewPage(app: FastifyInstance, uploadOf: (userId: number, id: string) => Promise<ListUpload>): void {
  app.get<{ Params: { id: string }; Querystring: { column?: string; rejected?: string } }>(
    '/lists/uploads/:id',
    {
      schema: {
        params: uploadParams,
        querystring: { type: 'object', properties: { column: columnSpec, rejected: { type: 'string', pattern: '^[1-9][0-9]{0,5}$' } } },
      },
    },
    async (request, reply) => {
      const upload = await uploadOf(signedIn(request).user.id, request.params.id);
      if (upload.jobId !== null) return reply.redirect(`/jobs/${upload.jobId}`, 303);
      // Every row failing the syntax check can be seen, a page at a time; only that page is kept while the list is read.
      const rejectedPage = Number(request.query.rejected ?? 1);
      const rejected = { skip: (rejectedPage - 1) * REJECTED_PER_PAGE, take: REJECTED_PER_PAGE };
      const { source, list, problem } = await asListProblem(() => previewUploadedList(upload, request.query.column, rejected));
      const columns = Array.from({ length: source.width }, (_, index) => ({
        number: String(index + 1),
        label: source.column.header?.[index]?.trim() || `column ${index + 1}`,
      }));
      return renderPage(request, reply, 'preview', {
        title: 'Check the list',
        upload,
        columns,
        column: String(source.column.index + 1),
        hasHeader: source.column.hasHeader,
        delimiter: source.dialect.kind === 'csv' ? source.dialect.delimiter : null,
        problem: problem ?? null,
        sample: list?.addresses.slice(0, PREVIEW_ROWS) ?? [],
        list: list ?? null,
        tooMany: (list?.addresses.length ?? 0) > MAX_BULK_EMAILS,
        rejectedFrom: rejected.skip + 1,
        rejectedPage,
        rejectedPages: Math.max(1, Math.ceil((list?.invalid ?? 0) / REJECTED_PER_PAGE)),
        maxEmails: MAX_BULK_EMAILS,
      });
    },
  );
}

export function listPages(app: FastifyInstance, { store, onJobCreated }: DashboardConfig): void {
  async function uploadOf(userId: number, id: string): Promise<ListUpload> {
    const upload = await store.dashboard.findUpload(userId, id);
    if (!upload) throw new ProblemError('not_found', 'No such uploaded list.');
    return upload;
  }

  app.get('/lists', async (request, reply) => {
    const userId = signedIn(request).user.id;
    const [jobs, uploads] = [await store.jobs.listJobs(userId, JOBS_SHOWN), await store.dashboard.pendingUploads(userId)];
    const deleted = takeFromLastPage<DeletedJob>(request, reply, DELETED_JOB);
    return renderPage(request, reply, 'lists', { title: 'Lists', jobs, uploads, deleted, uploadLimitMib: MAX_PENDING_UPLOAD_BYTES / 1024 / 1024 });
  });

  // Step 1: the file is kept and read as the CLI reads it, and the user sees what was found.
  app.post<{ Body: Record<string, unknown> }>('/lists', async (request, reply) => {
    const file = request.body?.list;
    if (!isUploadedFile(file) || file.content.length === 0) throw new ProblemError('invalid_request', 'Choose a non-empty CSV or text file to upload.');
    const name = file.name.trim() || 'list';
    // Read once before keeping it, so that a file that is no list at all is refused at once.
    await asListProblem(() => previewUploadedList({ fileName: name, content: file.content }, undefined));
    const id = await keepUpload(store, signedIn(request).user.id, name, file.content);
    return reply.redirect(`/lists/uploads/${id}`, 303);
  });

  deletingUploads(app, store);

  previewPage(app, uploadOf);

  // Step 3: the job. The upload's id is its Idempotency-Key: a second click pays nothing more.
  app.post<{ Params: { id: string }; Body: { column: string } }>(
    '/lists/uploads/:id/submit',
    { schema: { params: uploadParams, body: { type: 'object', required: ['column'], properties: { column: columnSpec, [CSRF_FIELD]: { type: 'string' } } } } },
    async (request, reply) => {
      const userId = signedIn(request).user.id;
      const upload = await uploadOf(userId, request.params.id);
      const { column } = request.body;
      const { list } = await asListProblem(() => readUploadedList(upload, column));
      if (list.addresses.length === 0)
        throw new ProblemError('invalid_request', `${upload.fileName}: no address in this column passes the syntax check; nothing to verify.`);
      if (list.addresses.length > MAX_BULK_EMAILS) {
        throw new ProblemError(
          'payload_too_large',
          `${upload.fileName} holds ${list.addresses.length} distinct addresses; at most ${MAX_BULK_EMAILS} fit in one job. Split the file.`,
        );
      }
      const key = { key: `upload:${upload.id}`, route: 'dashboard list', requestHash: createHash('sha256').update(column).digest('hex') };
      const created = await unlessConflicting(() => store.jobs.createJob(userId, list.addresses, key));
      if (!created.ok) throw insufficientTokens(created);
      await store.dashboard.attachUploadToJob(userId, upload.id, created.jobId, column);
      if (!created.replayed) onJobCreated();
      return reply.redirect(`/jobs/${created.jobId}`, 303);
    },
  );
}
