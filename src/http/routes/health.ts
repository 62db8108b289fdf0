import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/database.js';

/**
 * 200 when the database answers, 503 when it does not (for load balancers). While it answers but
 * cannot write (a write failed for want of storage in the last 5 s: its disk full), still 200,
 * saying `degraded` and `writes: failing`: reads are served
 * and each write is refused with an honest 503 of its own, while a 503 here would have a load
 * balancer drop every request, reads too, for a fault no other instance escapes (they share the
 * database).
 */
export async function healthOf(database: Database): Promise<{ status: number; body: { status: string; database: string; writes?: string } }> {
  if (!(await database.ping())) return { status: 503, body: { status: 'unavailable', database: 'unreachable' } };
  if (database.writesFailing) return { status: 200, body: { status: 'degraded', database: 'reachable', writes: 'failing' } };
  return { status: 200, body: { status: 'ok', database: 'reachable' } };
}

/** `GET /healthz` on the management API. */
export function registerHealthRoute(app: FastifyInstance, database: Database): void {
  app.get('/healthz', { config: { rateLimit: false } }, async (_request, reply) => {
    const health = await healthOf(database);
    return reply.code(health.status).send(health.body);
  });
}
