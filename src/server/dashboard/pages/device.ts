import type { FastifyInstance } from 'fastify';
import { displayUserCode, hashCode, normaliseUserCode } from '../../auth/device-codes.js';
import { admitUserCodeLookup, wrongUserCode } from '../../auth/login-limit.js';
import type { DeviceGrant, Store } from '../../store/store.js';
import { CSRF_FIELD } from '../common/csrf.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { signedIn } from '../common/signed-in.js';

const TITLE = 'Log in a device';
const CODE_FIELD = { type: 'string', maxLength: 64 } as const;

const pageSchema = {
  querystring: { type: 'object', properties: { code: CODE_FIELD, done: { type: 'string', enum: ['approved', 'denied'] } } },
};

const decideSchema = {
  body: {
    type: 'object',
    required: ['code', 'decision'],
    properties: { code: CODE_FIELD, decision: { type: 'string', enum: ['approve', 'deny'] }, [CSRF_FIELD]: { type: 'string' } },
  },
};

/** Why a code typed on the page cannot be approved, in words for the person at the browser; undefined when it can. */
function whyNot(grant: DeviceGrant | undefined): string | undefined {
  if (grant === undefined) return 'No device is waiting with that code. Check the code your terminal shows.';
  if (grant.status !== 'pending') return 'That code was used already. Start the login on your device again.';
  if (!grant.live) return 'That code has expired. Start the login on your device again.';
  return undefined;
}

/** The request a typed code names, counting a code that names none against the account (admitUserCodeLookup). */
async function lookUp(store: Store, userId: number, normalised: string | undefined): Promise<DeviceGrant | undefined> {
  await admitUserCodeLookup(store.limits, userId);
  const grant = normalised === undefined ? undefined : await store.deviceGrants.findByUserCode(hashCode(normalised));
  if (grant === undefined) await wrongUserCode(store.limits, userId);
  return grant;
}

/**
 * The approval page of a device's login (docs/api.md "Logging in from a device"; RFC 8628): the
 * signed-in person types the code their terminal shows (or follows the link that fills it in), sees
 * which device asks for what, and approves (the device's token will be this account's) or denies.
 * A code is decided once. Wrong codes are counted per account, so that none can be guessed here.
 */
export function devicePages(app: FastifyInstance, { store }: DashboardConfig): void {
  app.get<{ Querystring: { code?: string; done?: 'approved' | 'denied' } }>('/device', { schema: pageSchema }, async (request, reply) => {
    const { code, done } = request.query;
    if (done !== undefined) return renderPage(request, reply, 'device', { title: TITLE, step: done, code: '', message: '' });
    const typed = code?.trim() ?? '';
    if (typed === '') return renderPage(request, reply, 'device', { title: TITLE, step: 'enter', code: '', message: '' });
    const normalised = normaliseUserCode(typed);
    const grant = await lookUp(store, signedIn(request).user.id, normalised);
    const message = whyNot(grant);
    if (message !== undefined) {
      reply.code(grant === undefined ? 404 : 410);
      return renderPage(request, reply, 'device', { title: TITLE, step: 'enter', code: typed, message });
    }
    return renderPage(request, reply, 'device', { title: TITLE, step: 'confirm', code: displayUserCode(normalised!), device: grant, message: '' });
  });

  // Post, redirect, get: reloading the page that follows decides nothing again.
  app.post<{ Body: { code: string; decision: 'approve' | 'deny' } }>('/device', { schema: decideSchema }, async (request, reply) => {
    const normalised = normaliseUserCode(request.body.code);
    const userId = signedIn(request).user.id;
    const approve = request.body.decision === 'approve';
    await admitUserCodeLookup(store.limits, userId);
    const decided = normalised !== undefined && (await store.deviceGrants.decide(hashCode(normalised), userId, approve));
    if (!decided) {
      const grant = await lookUp(store, userId, normalised);
      reply.code(409);
      return renderPage(request, reply, 'device', {
        title: TITLE,
        step: 'enter',
        code: request.body.code,
        message: whyNot(grant) ?? 'That code cannot be decided now.',
      });
    }
    return reply.redirect(`/device?done=${approve ? 'approved' : 'denied'}`, 303);
  });
}
