import type { FastifyInstance } from 'fastify';
import { checkCell, type Checks, type VerificationResult } from '../../../engine/core/types.js';
import { chargeForVerify, verifyPaid } from '../../services/paid-verification.js';
import { verifySchema } from '../../schemas/verification.js';
import { CSRF_FIELD } from '../common/csrf.js';
import type { DashboardConfig } from '../common/config.js';
import { renderPage } from '../common/render.js';
import { signedIn } from '../common/signed-in.js';

const verifyFormSchema = {
  body: { type: 'object', required: ['email'], properties: { email: verifySchema.body.properties.email, [CSRF_FIELD]: { type: 'string' } } },
};

/** The checks as the page shows them: each name with its value, blank where it was not established. */
function checkRows(result: VerificationResult): [string, string][] {
  return (Object.keys(result.checks) as (keyof Checks)[]).map((name) => [name, checkCell(result, name)]);
}

export function verifyPages(app: FastifyInstance, { store, verifier, refundUnknown }: DashboardConfig): void {
  app.get('/verify', (request, reply) => renderPage(request, reply, 'verify', { title: 'Verify an address', result: null, checks: [], email: '' }));

  // The API's single verification, at the API's price: one token, given back if the engine fails.
  app.post<{ Body: { email: string } }>('/verify', { schema: verifyFormSchema }, async (request, reply) => {
    const userId = signedIn(request).user.id;
    const email = request.body.email.trim();
    const charge = await chargeForVerify(store.accounts, userId);
    const result = await verifyPaid({ accounts: store.accounts, idempotency: store.idempotency, verifier, log: request.log, refundUnknown }, userId, email, {
      charge,
    });
    return renderPage(request, reply, 'verify', { title: 'Verify an address', result, checks: checkRows(result), email });
  });
}
