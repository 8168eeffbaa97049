import type { FastifyInstance } from 'fastify';
import type { NetworkWatch } from '../../engine/index.js';
import { healthSchema } from '../schemas/health.js';

/**
 * `/healthz`: the service is up (`status` stays "ok": it answers, and verdicts stay honest, only
 * `unknown`), and `details` says what the engine found out about its network.
 */
export function healthRoutes(app: FastifyInstance, network?: NetworkWatch): void {
  app.get('/healthz', { schema: healthSchema }, async () => (network ? { status: 'ok' as const, details: network.status() } : { status: 'ok' as const }));
}
