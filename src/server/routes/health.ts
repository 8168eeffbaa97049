import type { FastifyInstance } from 'fastify';
import type { NetworkStatus, NetworkWatch } from '../../engine/index.js';
import { problemBody, sendProblem, STORE_RETRY_AFTER_SECONDS } from '../errors.js';
import { healthSchema, readySchema } from '../schemas/health.js';
import type { InstallStore } from '../store/store.js';

/** What this node's engine found that keeps it from verifying anything, for the operator; undefined when nothing does. */
function cannotVerifyBecause(status: NetworkStatus): string | undefined {
  if (status.port25.state === 'blocked') return `Outbound SMTP (port 25) is blocked on this node's network: ${status.port25.reason ?? 'no connection gets out'}.`;
  if (status.resolver.state === 'untruthful') return `This node's resolver does not answer truthfully: ${status.resolver.reason ?? 'it denies well-known names'}.`;
  return undefined;
}

/** /readyz waits this long for the store before it says "not ready": under the 5 s an operator's probe allows. */
const READY_TIMEOUT_MS = 3_000;

function answersWithin(ping: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([ping.then(() => true, () => false), late]).finally(() => clearTimeout(timer));
}

/**
 * `/healthz` is liveness: the process is up (`status` stays "ok", and `details` says what the
 * engine found out about its network). `/readyz` is readiness: whether this node can serve
 * requests now, i.e. its store answers; 503 problem+json (`store_unavailable`) when not.
 */
export function healthRoutes(app: FastifyInstance, install: InstallStore, network?: NetworkWatch): void {
  app.get('/healthz', { schema: healthSchema }, async () => (network ? { status: 'ok' as const, details: network.status() } : { status: 'ok' as const }));
  app.get('/readyz', { schema: readySchema }, async (_request, reply) => {
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    if (!(await answersWithin(install.ping(), READY_TIMEOUT_MS))) {
      return sendProblem(reply, problemBody('store_unavailable', 'The store does not answer; this node cannot serve requests until it does.'));
    }
    const cannot = network && cannotVerifyBecause(network.status());
    if (cannot) return sendProblem(reply, problemBody('cannot_verify', cannot));
    reply.removeHeader('retry-after');
    return { status: 'ready' as const };
  });
}
