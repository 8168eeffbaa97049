import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './app-config.js';
import { currentUser } from '../auth/guard.js';
import { chargeOnce, idempotencyKey, sendRecorded } from '../http/idempotency.js';
import { chargeForVerify, verifyPaid, VERIFY_COST } from '../services/paid-verification.js';
import { verifySchema } from '../schemas/verification.js';
import type { PaidCharge } from '../store/store.js';
import { isTestCaller, sandboxVerify } from './sandbox.js';

const ROUTE = 'POST /v1/verify';

export function verifyRoutes(scope: FastifyInstance, { store, verifier, refundUnknown }: AppConfig): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post('/v1/verify', { schema: verifySchema }, async (request, reply) => {
    // A test token's answer costs nothing and asks no server (docs/api.md "Sandbox").
    if (isTestCaller(request)) return sandboxVerify(request.body.email);
    const user = currentUser(request);
    const key = idempotencyKey(request, ROUTE);
    // The charge comes first and is atomic (with claiming the key, when there is one), so
    // concurrent requests can never overspend or pay twice; an engine fault gives the token back.
    let charge: PaidCharge;
    if (key) {
      const charged = await chargeOnce(store.accounts, user.id, VERIFY_COST, key);
      if (charged.kind === 'recorded') return sendRecorded(reply, charged.record);
      charge = { id: charged.chargeId, amount: VERIFY_COST };
    } else {
      charge = await chargeForVerify(store.accounts, user.id);
    }
    const paid = { accounts: store.accounts, idempotency: store.idempotency, verifier, log: request.log, refundUnknown };
    const { email, fresh, explain } = request.body;
    return verifyPaid(paid, user.id, email, { charge, key, fresh, explain });
  });
}
