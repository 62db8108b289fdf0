import type { FastifyInstance } from 'fastify';
import type { HealthService } from '../../services/health.js';
import type { HealthDetailGate } from '../../web/health-detail.js';

/**
 * `GET /healthz` on the management API: each dependency's check; 503 only when this instance cannot
 * serve (services/health.ts). Details only for a loopback client or the metrics token (`gate`).
 */
export function registerHealthRoute(app: FastifyInstance, health: HealthService, gate: HealthDetailGate): void {
  app.get('/healthz', { config: { rateLimit: false } }, async (request, reply) => {
    // request.ip: the client after trusted proxies (Fastify's trustProxy is net/client-address.ts's)
    const answer = await health.answer(gate.allows(request.ip, request.headers));
    return reply.code(answer.httpStatus).header('cache-control', 'no-store').send(answer.body);
  });
}
