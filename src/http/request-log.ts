import type { FastifyInstance } from 'fastify';
import { normaliseAddress } from '../net/client-address.js';
import { requestLogLevel } from '../web/request-log-level.js';

// The dashboard's emailed links carry their secret in the path: it never reaches the log.
const SECRET_IN_PATH = /^(\/(?:reset-password|invitations|not-spam)\/)[^/]+/;

/** The path as logged: without the query, and with a link's secret replaced by `…`. */
export function loggedPath(url: string): string {
  return url.split('?')[0]!.replace(SECRET_IN_PATH, '$1…');
}

/**
 * One log line per request (no headers, no query, no body, no secret of a link: nothing secret), and
 * the id echoed back; probes that succeed at debug level (requestLogLevel). `ip` is the client's address as the rate limits saw it (after trusted proxies).
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const path = loggedPath(request.url);
    request.log[requestLogLevel(path, reply.statusCode)](
      {
        method: request.method,
        path,
        ip: normaliseAddress(request.ip),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
