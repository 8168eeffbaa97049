import type { FastifyInstance } from 'fastify';
import { ProblemError } from './errors.js';

/** Charsets a JSON body may declare: UTF-8 (RFC 8259 §8.1), its common misspelling, and its ASCII subset. */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

function declaredCharset(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/**
 * Makes `application/json` in UTF-8 the only request body the app reads; anything else is a 415.
 * fastify's own JSON parser ignores the charset, so a body labelled UTF-16 would be read as UTF-8
 * and mean something else than its sender meant; and its text/plain parser would turn a wrong
 * content type into a confusing 400.
 */
export function acceptOnlyJsonBodies(app: FastifyInstance): void {
  // Prototype poisoning (`__proto__`, `constructor.prototype` keys) is refused as the 400 it is.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' as const }, (request, body: string, done) => {
    const charset = declaredCharset(request.headers['content-type']);
    if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
      done(new ProblemError('unsupported_media_type', `Send JSON bodies in UTF-8, not ${charset}.`));
      return;
    }
    parseJson(request, body, done);
  });
}
