import type { ProblemError } from '../errors.js';

/** The realm the management API names in its challenges. */
export const API_REALM = 'formgate';

const BEARER_SCHEME = /^Bearer(?:\s|$)/i;

/**
 * The `WWW-Authenticate` challenge of a refused bearer request (RFC 9110 §11.6.1, RFC 6750 §3), or
 * null for a problem that is no refusal of its credentials. A request that sent no bearer token
 * (no Authorization header, or another scheme) gets the bare challenge, without an error code; one
 * whose token is bad gets `error="invalid_token"`; one whose token lacks the scope (403)
 * `error="insufficient_scope"` and the scope it needs.
 */
export function bearerChallenge(problem: ProblemError, authorization: string | undefined, realm = API_REALM): string | null {
  const base = `Bearer realm="${realm}"`;
  if (problem.code === 'insufficient_scope') {
    const scope = typeof problem.extra.requiredScope === 'string' ? `, scope="${problem.extra.requiredScope}"` : '';
    return `${base}, error="insufficient_scope"${scope}`;
  }
  if (problem.code !== 'invalid_token') return null;
  return authorization !== undefined && BEARER_SCHEME.test(authorization) ? `${base}, error="invalid_token"` : base;
}
