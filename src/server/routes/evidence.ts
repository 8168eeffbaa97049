import { Readable } from 'node:stream';
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
import { meaningOf } from '../../engine/evidence/meaning.js';
import { eventFromJson, readEvidenceStream } from '../../engine/evidence/read.js';
import type { EvidenceRead } from '../../engine/evidence/event.js';
import { MAX_EVIDENCE_EVENTS, MAX_EVIDENCE_PAGE, type EvidenceEventInfo } from '../../wire/evidence.js';
import { currentUser } from '../auth/guard.js';
import { ProblemError } from '../http/errors.js';
import { deleteEvidenceSchema, importEvidenceSchema, readEvidenceSchema } from '../schemas/evidence.js';
import type { StoredEvidence } from '../store/store.js';
import { decisionOf, importEvidence } from '../verifier/evidence-import.js';
import { DEFAULT_EVIDENCE_WINDOW_MS } from '../verifier/evidence-window.js';
import type { AppConfig } from './app-config.js';

/** The raw bodies read as mail: one message, or an mbox of many. */
const RAW_TYPES = ['message/rfc822', 'application/mbox'];
const DEFAULT_PAGE = 100;

/** The JSON body's events as reads: each one an event, or a skip saying which and why. */
function jsonReads(body: unknown): EvidenceRead[] {
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (!fields || !Array.isArray(fields.events))
    throw new ProblemError('invalid_request', 'Send {"events": [...]}, a message/rfc822 or an application/mbox body.');
  const unknown = Object.keys(fields).find((key) => key !== 'events' && key !== 'source');
  if (unknown !== undefined) throw new ProblemError('invalid_request', `Unknown field "${unknown}" in the body.`);
  const source = fields.source ?? 'api';
  if (typeof source !== 'string' || source === '' || source.length > 100)
    throw new ProblemError('invalid_request', '"source" is a label of 1 to 100 characters.');
  if (fields.events.length > MAX_EVIDENCE_EVENTS) {
    throw new ProblemError(
      'payload_too_large',
      `At most ${MAX_EVIDENCE_EVENTS} events a request (this one has ${fields.events.length}): send them in batches.`,
    );
  }
  return fields.events.map((value, index) => {
    const event = eventFromJson(value, source);
    return typeof event === 'string' ? { skip: { file: 'body', where: `events[${index}]`, why: event } } : { event };
  });
}

const info = ({ id: _id, importedAt, ...event }: StoredEvidence): EvidenceEventInfo => ({ ...event, meaning: meaningOf(event), importedAt });

/** `/v1/evidence` (docs/api.md, docs/evidence.md "API"): the account's own bounces and deliveries. */
export function evidenceRoutes(scope: FastifyInstance, { store, evidenceWindowMs = DEFAULT_EVIDENCE_WINDOW_MS }: AppConfig): void {
  // Its own context: the raw mail types are read here only, under the same body limit as every write.
  void scope.register(async (inner) => {
    inner.addContentTypeParser(RAW_TYPES, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    const app = inner.withTypeProvider<JsonSchemaToTsProvider>();

    app.post('/v1/evidence', { schema: importEvidenceSchema }, async (request) => {
      const userId = currentUser(request).id;
      const body: unknown = request.body;
      if (!Buffer.isBuffer(body)) return importEvidence(store.evidence, userId, jsonReads(body));
      const contentType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      return importEvidence(store.evidence, userId, readEvidenceStream('body', Readable.from([body]), { contentType, source: request.query.source }));
    });

    app.get('/v1/evidence', { schema: readEvidenceSchema }, async (request) => {
      const userId = currentUser(request).id;
      const { email, limit, cursor } = request.query;
      if (email !== undefined) {
        // Every event of the address, a page as long as the longest: one address seldom has more.
        const page = await store.evidence.listEvidence(userId, { email, limit: MAX_EVIDENCE_PAGE });
        const events = page.events.map(info).sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
        return { email: events[0]?.email ?? email, events, decision: decisionOf(events, evidenceWindowMs) };
      }
      const size = limit === undefined ? DEFAULT_PAGE : Number(limit);
      if (size < 1 || size > MAX_EVIDENCE_PAGE) throw new ProblemError('invalid_request', `limit is 1 to ${MAX_EVIDENCE_PAGE}.`);
      const page = await store.evidence.listEvidence(userId, { limit: size, cursor });
      return { events: page.events.map(info), next_cursor: page.cursor ?? null };
    });

    app.delete('/v1/evidence', { schema: deleteEvidenceSchema }, async (request) => ({
      deleted: await store.evidence.deleteEvidence(currentUser(request).id, request.query),
    }));
  });
}
