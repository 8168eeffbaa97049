import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import formBody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import { checkCsrf } from './common/csrf.js';
import { devicePages } from './pages/device.js';
import { jobPages } from './pages/jobs.js';
import { listPages } from './pages/lists.js';
import { overviewPages } from './pages/overview.js';
import { signInPages } from './pages/sign-in.js';
import { tokenPages } from './pages/tokens.js';
import { verifyPages } from './pages/verify.js';
import { webhookPages } from './pages/webhooks.js';
import { evidencePages } from './pages/evidence.js';
import { evidenceReceiverPages } from './pages/evidence-receivers.js';
import { renderError, securityHeaders } from './common/render.js';
import { signedInUser, type SignedIn } from './common/sessions.js';
import { signInFor } from './common/return-to.js';
import { signedIn } from './common/signed-in.js';
import { bufferUpload, MAX_UPLOAD_BYTES } from './common/upload.js';
import type { DashboardConfig } from './common/config.js';

/** The package's top-level web/: three levels up from src/server/dashboard/ and dist/server/dashboard/ alike. */
const WEB_DIR = new URL('../../../web/', import.meta.url);

declare module 'fastify' {
  interface FastifyRequest {
    /** On dashboard pages behind sign-in: who is signed in, with which session. */
    signedIn: SignedIn | null;
    /** Whether the form's body was read whole; an error before that is the form's fault (see renderError). */
    formRead: boolean;
  }
}

function staticFile(name: string): string {
  return readFileSync(new URL(`static/${name}`, WEB_DIR), 'utf8');
}

/**
 * The dashboard of docs/architecture.md "The dashboard" at `/`: server-rendered pages (eta templates in web/views/) that
 * work without JavaScript. Its forms are read here only, in their own scope: the API stays JSON-only.
 */
export function dashboardRoutes(app: FastifyInstance, config: DashboardConfig): void {
  app.register(async (scope) => {
    await scope.register(formBody, { bodyLimit: 64 * 1024 });
    await scope.register(multipart, {
      attachFieldsToBody: 'keyValues',
      onFile: bufferUpload,
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 4, parts: 5 },
    });
    await scope.register(view, {
      engine: { eta: new Eta({ autoEscape: true, autoTrim: false }) },
      root: fileURLToPath(new URL('views/', WEB_DIR)),
      layout: 'layout.eta',
      production: true,
    });
    scope.decorateRequest('signedIn', null);
    scope.decorateRequest('formRead', false);
    scope.addHook('preValidation', async (request) => {
      request.formRead = true;
    });
    scope.addHook('onSend', securityHeaders);
    scope.setErrorHandler(renderError);

    const css = staticFile('dashboard.css');
    const script = staticFile('dashboard.js');
    scope.get('/dashboard.css', (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(css));
    scope.get('/dashboard.js', (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(script));
    const icon = staticFile('favicon.svg');
    scope.get('/favicon.svg', (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(icon));
    scope.get('/favicon.ico', (_request, reply) => reply.redirect('/favicon.svg', 301));
    // Where people (and browsers' saved links) look for a sign-in page.
    scope.get('/login', (_request, reply) => reply.redirect('/sign-in', 301));

    signInPages(scope, config);

    // Everything else needs a signed-in session, and every form post its CSRF token.
    scope.register(async (pages) => {
      pages.addHook('onRequest', async (request, reply) => {
        const signedIn = await signedInUser(config.store, request);
        if (!signedIn) return reply.redirect(signInFor(request), 303);
        request.signedIn = signedIn;
      });
      // A form post is a request like an API call: it counts against the user's rate limit, so the
      // pages are no way around it (page views are not counted; they cost nothing).
      pages.addHook('preValidation', async (request, reply) => {
        if (request.method === 'GET' || request.method === 'HEAD') return;
        checkCsrf(request, request.signedIn?.session.csrfSecret);
        await config.limiter.admit(signedIn(request).user, reply);
      });
      overviewPages(pages, config);
      tokenPages(pages, config);
      listPages(pages, config);
      jobPages(pages, config);
      verifyPages(pages, config);
      webhookPages(pages, config);
      evidencePages(pages, config);
      evidenceReceiverPages(pages, config);
      devicePages(pages, config);
    });
  });
}
