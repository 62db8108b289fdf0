import type { FastifyInstance } from 'fastify';
import type { HealthService } from '../../services/health.js';

/** `GET /healthz` on the management API: each dependency's check; 503 only when this instance cannot serve (services/health.ts). */
export function registerHealthRoute(app: FastifyInstance, health: HealthService): void {
  app.get('/healthz', { config: { rateLimit: false } }, async (_request, reply) => {
    const answer = await health.health();
    return reply.code(answer.httpStatus).header('cache-control', 'no-store').send(answer.body);
  });
}
