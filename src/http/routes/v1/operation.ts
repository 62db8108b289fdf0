import type { Scope } from '../../../domain/scopes.js';

/**
 * Declares an operation's scope once: the auth hook reads `config.scope`, the OpenAPI document
 * reads `security` (the scope as the bearer requirement's role) and `x-required-scope`.
 */
export function operation<S extends object>(scope: Scope | 'any', schema: S) {
  return {
    schema: { ...schema, security: [{ bearerAuth: scope === 'any' ? [] : [scope] }], 'x-required-scope': scope },
    config: { scope },
  };
}
