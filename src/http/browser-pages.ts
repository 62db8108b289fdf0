import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProblemError } from '../errors.js';

// The API answers problem documents; a browser that asked for a page outside it (the dashboard's
// addresses) gets a page instead. Both the not-found handler and the error handler ask here.

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
