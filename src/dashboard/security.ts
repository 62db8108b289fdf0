import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CROSS_SITE_DETAIL, PageError } from './page-error.js';

/**
 * Security headers on every page: a Content-Security-Policy that allows no inline script or style
 * and no framing, nosniff, and a referrer policy that sends nothing to other sites (`same-origin`,
 * not `no-referrer`, under which browsers send `Origin: null` on every form post).
 */
export async function installSecurityHeaders(app: FastifyInstance, https: boolean): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: https ? { maxAge: 15_552_000, includeSubDomains: false } : false,
    crossOriginEmbedderPolicy: false,
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The first of two CSRF checks (the token is the second): a change must come from a page of this
 * site. A browser names the page's origin in `Origin` and `Sec-Fetch-Site` on every form post; either
 * one pointing elsewhere is refused before the body is read.
 */
export function installOriginCheck(app: FastifyInstance, publicUrl: string): void {
  const publicOrigin = new URL(publicUrl).origin;
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (SAFE_METHODS.has(request.method)) return;
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') throw crossSite();
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (origin !== publicOrigin && origin !== `${request.protocol}://${request.host}`) throw crossSite();
  });
}

function crossSite(): PageError {
  return new PageError(403, 'Change refused', CROSS_SITE_DETAIL);
}
