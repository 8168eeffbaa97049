import type { FastifyInstance } from 'fastify';
import type { NetworkStatus, NetworkWatch } from '../../engine/index.js';
import { healthSchema } from '../schemas/health.js';

/** The problems in a network status, each in a sentence that says what to do; none when all is well. */
function networkProblems(status: NetworkStatus): string[] {
  const problems: string[] = [];
  if (status.port25.state === 'blocked') problems.push(status.port25.reason ?? 'outbound SMTP appears blocked');
  if (status.resolver.state === 'untruthful') problems.push(status.resolver.reason ?? 'the resolver is not answering truthfully');
  return problems;
}

/**
 * `/healthz`: the service is up (`status` stays "ok": it answers, and verdicts stay honest, only
 * `unknown`), and `details` says what the engine found out about its network. Each change of that
 * is logged once, not once per address.
 */
export function healthRoutes(app: FastifyInstance, network?: NetworkWatch): void {
  app.get('/healthz', { schema: healthSchema }, async () => (network ? { status: 'ok' as const, details: network.status() } : { status: 'ok' as const }));
  if (!network) return;
  const stop = network.onChange((status) => {
    const problems = networkProblems(status);
    if (problems.length > 0) app.log.warn({ network: status }, `network: ${problems.join('; ')}`);
    else app.log.info({ network: status }, 'network: SMTP connections get out and the resolver tells the truth');
  });
  app.addHook('onClose', async () => stop());
}
