import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';
import { clip, ProblemError } from '../errors.js';
import { type NotFoundPage, wantsPage } from './browser-pages.js';
import { sendProblem } from './problem-handler.js';

/**
 * Unknown routes answer `404 not_found`; a known path with the wrong method answers
 * `405 method_not_allowed` with `Allow`. A shadow router mirrors the registered routes to tell which.
 * A browser asking for an unknown page outside the API gets `notFound`'s page instead.
 */
export function installNotFound(app: FastifyInstance, docsUrl: () => string, notFound?: NotFoundPage): void {
  const shadow = FindMyWay({ ignoreTrailingSlash: false });
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      methods.add(method);
      try {
        shadow.on(method as HTTPMethod, route.url, () => undefined);
      } catch {
        // the same path and method twice (Fastify's own HEAD twins): already known
      }
    }
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = [...methods].filter((m) => m !== request.method && shadow.find(m as HTTPMethod, path));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      const problem = new ProblemError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(' or ')}.`);
      return wantsPage(request, notFound) ? notFound.problemPage(reply, problem) : sendProblem(reply, docsUrl, problem);
    }
    // a browser's post to an unknown page (a stale form, an edited address) gets the page too
    if (wantsPage(request, notFound)) return notFound.page(reply);
    return sendProblem(reply, docsUrl, new ProblemError('not_found', `There is nothing at ${request.method} ${clip(path)}.`));
  });
}
