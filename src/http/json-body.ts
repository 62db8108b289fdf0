import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationError } from '../errors.js';
import { jsonNestsDeeperThan } from '../web/json-depth.js';

/** How deep a management API body may nest its objects and arrays (documented in docs/decisions.md). */
export const API_JSON_DEPTH = 32;

/** The API's JSON parser: Fastify's own (prototype poisoning refused), behind the depth guard. */
export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonNestsDeeperThan(text, API_JSON_DEPTH)) {
      done(validationError([`body: nests objects and arrays more than ${API_JSON_DEPTH} levels deep`], 'The body nests too deeply.'), undefined);
      return;
    }
    parse(request, text, done);
  });
}
