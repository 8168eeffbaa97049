import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../../http/errors.js';
import { importEvidence } from '../../verifier/evidence-import.js';
import { CSRF_FIELD } from '../common/csrf.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { signedIn } from '../common/signed-in.js';
import type { UploadedFile } from '../common/upload.js';

const outcomeQuery = {
  type: 'object',
  properties: {
    read: { type: 'string', pattern: '^[0-9]{1,9}$' },
    added: { type: 'string', pattern: '^[0-9]{1,9}$' },
    skipped: { type: 'string', pattern: '^[0-9]{1,9}$' },
    deleted: { type: 'string', pattern: '^[0-9]{1,9}$' },
  },
};

/** A delete asks for its box to be ticked: deleting evidence changes verdicts, and a stray click must not. */
const deleteBody = {
  type: 'object',
  required: ['confirm'],
  properties: { confirm: { type: 'string', const: 'yes' }, source: { type: 'string', minLength: 1, maxLength: 100 }, [CSRF_FIELD]: { type: 'string' } },
};

function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).content);
}

/**
 * The Evidence page (docs/evidence.md): upload a file of bounces or deliveries (read by content, as
 * the CLI reads it), see the account's events counted by kind and source, delete all or one source's.
 */
export function evidencePages(app: FastifyInstance, { store }: DashboardConfig): void {
  app.get<{ Querystring: Record<string, string | undefined> }>('/evidence', { schema: { querystring: outcomeQuery } }, async (request, reply) => {
    const counts = await store.evidence.evidenceCounts(signedIn(request).user.id);
    const sources = [...new Set(counts.map((count) => count.source))];
    const { read, added, skipped, deleted } = request.query;
    const imported = read === undefined ? null : { read, added: added ?? '0', skipped: skipped ?? '0' };
    return renderPage(request, reply, 'evidence', { title: 'Evidence', counts, sources, imported, deleted: deleted ?? null });
  });

  // Post, redirect, get: a reload of the page that follows imports nothing again.
  app.post<{ Body: Record<string, unknown> }>('/evidence', async (request, reply) => {
    const file = request.body?.evidence;
    if (!isUploadedFile(file) || file.content.length === 0)
      throw new ProblemError('invalid_request', 'Choose a non-empty file of bounces or deliveries to upload.');
    const { readEvidenceStream } = await import('../../../engine/evidence/read.js');
    const reads = readEvidenceStream(file.name || 'upload', Readable.from([file.content]));
    const outcome = await importEvidence(store.evidence, signedIn(request).user.id, reads);
    return reply.redirect(`/evidence?read=${outcome.read}&added=${outcome.added}&skipped=${outcome.skippedCount}`, 303);
  });

  app.post<{ Body: { source?: string } }>('/evidence/delete', { schema: { body: deleteBody } }, async (request, reply) => {
    const deleted = await store.evidence.deleteEvidence(signedIn(request).user.id, { source: request.body.source });
    return reply.redirect(`/evidence?deleted=${deleted}`, 303);
  });
}
