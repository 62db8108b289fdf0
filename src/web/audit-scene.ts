import { fastifyRequestContext, requestContext } from '@fastify/request-context';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditActor, AuditScene } from '../services/audit-log.js';

declare module '@fastify/request-context' {
  interface RequestContextData {
    audit: AuditScene;
  }
}

/** What the surfaces know of a request's caller: its session's account (dashboard) or its token's (API). */
export type ActorOf = (request: FastifyRequest) => AuditActor | null;

/**
 * Gives every request of the dashboard and the management API its audit scene (who, from where),
 * kept in the request's async context (@fastify/request-context), so that a service's
 * `audit.record(...)` finds it without being handed the request. Registered on the instance that
 * serves both, before any route.
 */
export async function installAuditScene(app: FastifyInstance, apiPrefix: string, actorOf: ActorOf): Promise<void> {
  await app.register(fastifyRequestContext, {
    defaultStoreValues: (request) => ({
      audit: {
        via: request.url.startsWith(`${apiPrefix}/`) ? 'api' : 'dashboard',
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        actor: () => actorOf(request),
      },
    }),
  });
}

/** The scene of the request being served, or undefined outside one (a job, an admin command). */
export function currentAuditScene(): AuditScene | undefined {
  return requestContext.get('audit');
}
