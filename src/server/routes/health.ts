import type { FastifyInstance } from 'fastify';
import type { NetworkStatus, NetworkWatch } from '../../engine/index.js';
import { problemBody, sendProblem, STORE_RETRY_AFTER_SECONDS } from '../http/errors.js';
import { healthSchema, readySchema } from '../schemas/health.js';
import type { InstallStore } from '../store/store.js';

/**
 * Whether this node's engine can verify now: its port 25 is not confirmed blocked and its resolver
 * tells the truth. Only that goes to unauthenticated callers (/healthz, /readyz): which hosts and
 * why are for the operator (the log, metrics, `mailverify doctor`), never for a caller who might
 * have caused a suspicion and wants to see it worked (docs/architecture.md "Egress").
 */
function canVerify(status: NetworkStatus): boolean {
  return status.port25.state !== 'blocked' && status.resolver.state !== 'untruthful';
}

/** /readyz waits this long for the store before it says "not ready": under the 5 s an operator's probe allows. */
const READY_TIMEOUT_MS = 3_000;

function answersWithin(ping: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([
    ping.then(
      () => true,
      () => false,
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

/**
 * `/healthz` is liveness: the process is up (`status` stays "ok", and `details` says whether the
 * engine can verify). `/readyz` is readiness: whether this node can serve
 * requests now, i.e. its store answers; 503 problem+json (`store_unavailable`) when not.
 */
export function healthRoutes(app: FastifyInstance, install: InstallStore, network?: NetworkWatch): void {
  app.get('/healthz', { schema: healthSchema }, async () =>
    network ? { status: 'ok' as const, details: { canVerify: canVerify(network.status()) } } : { status: 'ok' as const },
  );
  app.get('/readyz', { schema: readySchema }, async (_request, reply) => {
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    if (!(await answersWithin(install.ping(), READY_TIMEOUT_MS))) {
      return sendProblem(reply, problemBody('store_unavailable', 'The store does not answer; this node cannot serve requests until it does.'));
    }
    if (network && !canVerify(network.status())) {
      return sendProblem(
        reply,
        problemBody(
          'cannot_verify',
          "This node cannot verify now (its outbound SMTP or its resolver fails); its operator finds why in the node's log, its metrics and `mailverify doctor`.",
        ),
      );
    }
    reply.removeHeader('retry-after');
    return { status: 'ready' as const };
  });
}
