import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/database.js';

/** 200 when the database answers, 503 when it does not (for load balancers). */
export async function healthOf(database: Database): Promise<{ status: number; body: { status: string; database: string } }> {
  const ok = await database.ping();
  return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'unavailable', database: ok ? 'reachable' : 'unreachable' } };
}

/** `GET /healthz` on the management API. */
export function registerHealthRoute(app: FastifyInstance, database: Database): void {
  app.get('/healthz', { config: { rateLimit: false } }, async (_request, reply) => {
    const health = await healthOf(database);
    return reply.code(health.status).send(health.body);
  });
}
