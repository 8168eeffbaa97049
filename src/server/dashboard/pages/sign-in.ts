import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../../http/errors.js';
import { checkCsrf } from '../common/csrf.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { MAX_RETURN_PATH, returnPath } from '../common/return-to.js';
import { cookieValue, endSession, hostCookie, randomSecret, setCookie, signedInUser, startSession } from '../common/sessions.js';

/** Before sign-in there is no session to hold a CSRF secret: the sign-in form's token is also set in this cookie. */
const SIGN_IN_CSRF_COOKIE = 'mv_sign_in';

const nextSchema = { querystring: { type: 'object', properties: { next: { type: 'string', maxLength: MAX_RETURN_PATH } } } };

const signInSchema = {
  body: {
    type: 'object',
    required: ['email', 'password'],
    properties: {
      email: { type: 'string', maxLength: 320 },
      password: { type: 'string', maxLength: 1024 },
      next: { type: 'string', maxLength: MAX_RETURN_PATH },
      _csrf: { type: 'string' },
    },
  },
};

export function signInPages(app: FastifyInstance, { store, checkCredentials }: DashboardConfig): void {
  app.get<{ Querystring: { next?: string } }>('/sign-in', { schema: nextSchema }, async (request, reply) => {
    const next = returnPath(request.query.next);
    if (await signedInUser(store, request)) return reply.redirect(next, 303);
    const name = hostCookie(request, SIGN_IN_CSRF_COOKIE);
    const token = cookieValue(request, name) ?? randomSecret();
    setCookie(request, reply, { name, value: token, sameSite: 'strict' });
    return renderPage(request, reply, 'sign-in', { title: 'Sign in', signInCsrf: token, email: '', message: '', next });
  });

  app.post<{ Body: { email: string; password: string; next?: string } }>('/sign-in', { schema: signInSchema }, async (request, reply) => {
    const token = cookieValue(request, hostCookie(request, SIGN_IN_CSRF_COOKIE));
    checkCsrf(request, token);
    try {
      const user = await checkCredentials(request.body.email, request.body.password, request.ip);
      await startSession(store, request, reply, user.id);
      return reply.redirect(returnPath(request.body.next), 303);
    } catch (error) {
      // Wrong credentials and too many attempts are answered on the form itself; the words are
      // the same for an unknown address and a wrong password.
      if (!(error instanceof ProblemError)) throw error;
      reply.code(error.statusCode);
      const next = returnPath(request.body.next);
      return renderPage(request, reply, 'sign-in', { title: 'Sign in', signInCsrf: token, email: request.body.email, message: error.message, next });
    }
  });

  app.post('/sign-out', async (request, reply) => {
    const signedIn = await signedInUser(store, request);
    if (signedIn) {
      checkCsrf(request, signedIn.session.csrfSecret);
      await endSession(store, request, reply, signedIn.session);
    }
    return reply.redirect('/sign-in', 303);
  });
}
