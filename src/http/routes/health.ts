import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/database.js';

/** `GET /healthz`: 200 when the database answers, 503 when it does not (for load balancers). */
export function registerHealthRoute(app: FastifyInstance, database: Database): void {
  app.get('/healthz', { config: { rateLimit: false } }, async (_request, reply) => {
    const ok = await database.ping();
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', database: ok ? 'reachable' : 'unreachable' });
  });
}
