import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../config/config.js';
import { bearerChallenge } from '../bearer-challenge.js';
import { ProblemError } from '../../errors.js';
import type { Metrics } from '../../metrics/metrics.js';

/** Compared as digests: equal lengths whatever was sent, so the comparison takes the same time. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * `GET /metrics` (Prometheus text format) and the timing of every request of this port, registered
 * only when FORMGATE_METRICS is not off (off, the path is absent: 404). With a token, a scrape
 * without `Authorization: Bearer <token>` gets 401.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  app.addHook('onResponse', async (request, reply) => {
    // the route's pattern, never the raw path: one series per route, however many forms and ids
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.answered(route.startsWith(API_PREFIX) ? 'api' : 'dashboard', request.method, route, reply.statusCode, reply.elapsedTime);
  });
  const expected = token === null ? null : digest(`Bearer ${token}`);
  app.get('/metrics', { config: { rateLimit: false } }, async (request, reply) => {
    if (expected && !timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
      const refused = new ProblemError('invalid_token', 'GET /metrics needs `Authorization: Bearer <FORMGATE_METRICS>`.');
      reply.header('www-authenticate', bearerChallenge(refused, request.headers.authorization, 'metrics'));
      throw refused;
    }
    reply.header('cache-control', 'no-store').type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
