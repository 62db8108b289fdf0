import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationError } from '../errors.js';
import { jsonNestsDeeperThan } from '../web/json-depth.js';

/** How deep a management API body may nest its objects and arrays (documented in docs/decisions.md). */
export const API_JSON_DEPTH = 32;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation's body is optional: none, or an empty one, is read as `{}` (a preview's `data`). */
    optionalBody?: boolean;
  }
}

/**
 * The API's JSON parser: Fastify's own (prototype poisoning refused), behind the depth guard. On an
 * operation whose body is optional, an empty body (or none at all) is `{}`.
 */
export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (request.routeOptions.config?.optionalBody && text.trim() === '') {
      done(null, {});
      return;
    }
    if (jsonNestsDeeperThan(text, API_JSON_DEPTH)) {
      done(validationError([`body: nests objects and arrays more than ${API_JSON_DEPTH} levels deep`], 'The body nests too deeply.'), undefined);
      return;
    }
    parse(request, text, done);
  });
}

/** The hook of an operation whose body is optional: a request without one validates as `{}`. */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}
