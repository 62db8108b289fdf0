import type { Scope } from '../../../domain/scopes.js';

/** The sentence of an operation's description that names its scope. */
export function scopeSentence(scope: Scope | 'any'): string {
  return scope === 'any' ? 'Needs any valid token.' : `Needs a token with the \`${scope}\` scope.`;
}

/**
 * Declares an operation's scope once: the auth hook reads `config.scope`, the OpenAPI document
 * reads `x-required-scope` and the description's last sentence. The bearer requirement lists no
 * roles: OpenAPI 3.1 allows them for an `http` scheme, but linters (Spectral's `oas`) and most
 * client generators know scopes of OAuth flows only (docs/decisions.md, issue 39).
 */
export function operation<S extends { description?: string }>(scope: Scope | 'any', schema: S) {
  const description = [schema.description, scopeSentence(scope)].filter(Boolean).join(' ');
  return {
    schema: { ...schema, description, security: [{ bearerAuth: [] }], 'x-required-scope': scope },
    config: { scope },
  };
}
