import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clip, ProblemError } from '../errors.js';
import { sendProblem } from './problem-handler.js';

/** Pages for browsers that asked for a path outside `outside` (the API's prefix): the dashboard's. */
export interface NotFoundPage {
  outside: string;
  page(reply: FastifyReply): FastifyReply;
  /** A refusal answered before any route ran (a malformed or over-long path), as a page. */
  problemPage(reply: FastifyReply, problem: ProblemError): FastifyReply;
}

/** Whether a request is a browser's asking for a page, not for the API: it gets a page rather than a problem document. */
export function wantsPage(request: FastifyRequest, pages: NotFoundPage | undefined): pages is NotFoundPage {
  return pages !== undefined && !request.url.startsWith(pages.outside) && request.headers.accept?.includes('text/html') === true;
}

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
