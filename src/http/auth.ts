import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../errors.js';
import type { Scope } from '../domain/scopes.js';
import { invalidToken, type Principal, type TokenService } from '../services/tokens.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope the operation needs; `'any'` for any valid token; absent on public routes. */
    scope?: Scope | 'any';
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * Authenticates every route that declares a scope before its body is read or validated: a bad token is `401` and a missing scope `403` whatever the body holds, and
 * an anonymous caller never gets a body parsed.
 */
export function installAuth(app: FastifyInstance, tokens: TokenService): void {
  app.decorateRequest('principal', null);
  // preParsing: after the rate limiter's onRequest (bad-token bursts are counted), before the body is read
  app.addHook('preParsing', async (request: FastifyRequest) => {
    const scope = request.routeOptions.config?.scope;
    if (!scope) return;
    request.principal = await authenticateBearer(request, tokens, scope);
  });
}

/** The caller of `request` by its bearer token, holding `scope`: `401` without a valid token, `403` without the scope. */
export async function authenticateBearer(request: FastifyRequest, tokens: TokenService, scope: Scope | 'any'): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header) throw invalidToken('The Authorization header is missing; send "Authorization: Bearer <token>".');
  const match = BEARER.exec(header);
  if (!match) throw invalidToken('The Authorization header is malformed; send "Authorization: Bearer <token>".');
  const principal = await tokens.authenticate(match[1]!);
  if (scope !== 'any' && !principal.scopes.has(scope)) {
    throw new ProblemError('insufficient_scope', `This operation needs the ${scope} scope.`, { requiredScope: scope });
  }
  // an automation-tool key reaches its own workspace only
  await tokens.requireReach(principal, request.params, request.query);
  return principal;
}

/** The caller of an authenticated route (the hook has run). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route has no scope configured');
  return request.principal;
}
