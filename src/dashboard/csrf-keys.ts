import CSRF from '@fastify/csrf';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Keyring } from '../keyring.js';

/** The error @fastify/csrf-protection answers with, by the code the dashboard's error page knows. */
class CsrfError extends Error {
  readonly statusCode = 403;
  constructor(readonly code: 'FST_CSRF_MISSING_SECRET' | 'FST_CSRF_INVALID_TOKEN') {
    super(code === 'FST_CSRF_MISSING_SECRET' ? 'Missing csrf secret' : 'Invalid csrf token');
  }
}

/**
 * Checks a page's CSRF token as @fastify/csrf-protection does, but against every key of the ring:
 * the plugin's own check knows one HMAC key, so a token on a page loaded before a secret rotation
 * would fail. Tokens are still made by the plugin, with the current key (the ring's first).
 */
export function csrfChecker(keys: Keyring, cookieKey: string, userInfo: (request: FastifyRequest) => string) {
  const verifiers = keys.all.map((hmacKey) => CSRF({ hmacKey, userInfo: true }) as CSRF.TokensUserinfo);
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    const secret = reply.unsignCookie(request.cookies[cookieKey] ?? '').value;
    if (!secret) {
      done(new CsrfError('FST_CSRF_MISSING_SECRET'));
      return;
    }
    const body = request.body as { _csrf?: unknown } | undefined;
    const header = request.headers['csrf-token'] ?? request.headers['x-csrf-token'];
    const token = typeof body?._csrf === 'string' ? body._csrf : typeof header === 'string' ? header : '';
    const info = userInfo(request);
    if (!verifiers.some((tokens) => tokens.verify(secret, token, info))) {
      request.log.warn('Invalid csrf token');
      done(new CsrfError('FST_CSRF_INVALID_TOKEN'));
      return;
    }
    done();
  };
}
