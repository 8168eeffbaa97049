import type { FastifyInstance } from 'fastify';
import { healthSchema } from '../schemas/health.js';

export function healthRoutes(app: FastifyInstance): void {
  app.get('/healthz', { schema: healthSchema }, async () => ({ status: 'ok' as const }));
}
