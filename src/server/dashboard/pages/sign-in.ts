import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../../http/errors.js';
import { checkCsrf } from '../common/csrf.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { cookieValue, endSession, hostCookie, randomSecret, setCookie, signedInUser, startSession } from '../common/sessions.js';

/** Before sign-in there is no session to hold a CSRF secret: the sign-in form's token is also set in this cookie. */
const SIGN_IN_CSRF_COOKIE = 'mv_sign_in';

const signInSchema = {
  body: {
    type: 'object',
    required: ['email', 'password'],
    properties: { email: { type: 'string', maxLength: 320 }, password: { type: 'string', maxLength: 1024 }, _csrf: { type: 'string' } },
  },
};

export function signInPages(app: FastifyInstance, { store, checkCredentials }: DashboardConfig): void {
  app.get('/sign-in', async (request, reply) => {
    if (await signedInUser(store, request)) return reply.redirect('/', 303);
    const name = hostCookie(request, SIGN_IN_CSRF_COOKIE);
    const token = cookieValue(request, name) ?? randomSecret();
    setCookie(request, reply, { name, value: token, sameSite: 'strict' });
    return renderPage(request, reply, 'sign-in', { title: 'Sign in', signInCsrf: token, email: '', message: '' });
  });

  app.post<{ Body: { email: string; password: string } }>('/sign-in', { schema: signInSchema }, async (request, reply) => {
    const token = cookieValue(request, hostCookie(request, SIGN_IN_CSRF_COOKIE));
    checkCsrf(request, token);
    try {
      const user = await checkCredentials(request.body.email, request.body.password, request.ip);
      await startSession(store, request, reply, user.id);
      return reply.redirect('/', 303);
    } catch (error) {
      // Wrong credentials and too many attempts are answered on the form itself; the words are
      // the same for an unknown address and a wrong password.
      if (!(error instanceof ProblemError)) throw error;
      reply.code(error.statusCode);
      return renderPage(request, reply, 'sign-in', { title: 'Sign in', signInCsrf: token, email: request.body.email, message: error.message });
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
