import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError, setProblemHeaders } from '../../http/errors.js';
import { MAX_UPLOAD_BYTES } from './upload.js';

/**
 * No inline script or style at all, nothing from elsewhere, forms posting only here, no framing
 * (clickjacking): a reply text that slipped past escaping still could not run.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export async function securityHeaders(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  // Pages show balances and token secrets: never kept in a shared cache.
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
}

/** The variables every page's layout uses, from the signed-in session when there is one. */
export interface PageData {
  title: string;
  [name: string]: unknown;
}

export function renderPage(request: FastifyRequest, reply: FastifyReply, template: string, data: PageData): Promise<string> {
  const signedIn = request.signedIn ?? null;
  return reply.viewAsync(`${template}.eta`, {
    user: signedIn?.user ?? null,
    csrf: signedIn?.session.csrfSecret ?? '',
    path: request.url.split('?')[0],
    refreshSeconds: 0,
    ...data,
  });
}

/** Fastify's errors met on dashboard forms, in words for a person at a browser. */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_REQ_FILE_TOO_LARGE: `The file is over ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB. Split the list into smaller files, or send it with \`mailverify bulk submit\`.`,
  FST_FILES_LIMIT: 'Send one file at a time.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The form is too large.',
};

/**
 * The one error handler of the dashboard: an HTML page with the status, never internals. The
 * multipart reader fails a cut-short or garbled upload with a bare Error (no status): one thrown
 * before the form was read whole is that, a 400, not a fault of ours.
 */
export async function renderError(error: FastifyError | ProblemError, request: FastifyRequest, reply: FastifyReply): Promise<string> {
  if (error.statusCode === undefined && !request.formRead && request.isMultipart()) {
    reply.code(400);
    return renderPage(request, reply, 'error', {
      title: 'That did not work',
      message: 'The form could not be read: it was cut short or malformed. Send it again.',
    });
  }
  if (error instanceof ProblemError) setProblemHeaders(reply, error);
  let status = error.statusCode ?? 500;
  let message = error instanceof ProblemError ? error.message : (FRAMEWORK_MESSAGES[error.code] ?? error.message);
  if (status < 400 || status >= 500) {
    if (status >= 500) request.log.error({ err: error }, 'dashboard request failed');
    status = 500;
    message = 'Something went wrong on our side. Try again in a moment.';
  }
  reply.code(status);
  return renderPage(request, reply, 'error', { title: status === 404 ? 'Not found' : 'That did not work', message });
}
