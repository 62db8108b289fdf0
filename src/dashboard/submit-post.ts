import inject from 'light-my-request';
import type { SubmitPost } from '../services/test-submissions.js';
import type { SubmitSurface } from '../submit/server.js';

/**
 * A post to the submit surface made in this process (light-my-request, what Fastify's `inject()`
 * is built on): the same handler, checks and writer as a visitor's post, without a socket. It
 * comes from `remoteAddress` (the person's own), so their rate limit is the one it counts against.
 */
export function submitPoster(surface: SubmitSurface, remoteAddress: string): SubmitPost {
  return async ({ path, headers, body }) => {
    const answer = await inject((request, response) => surface.server.emit('request', request, response), {
      method: 'POST',
      url: path,
      headers,
      payload: body,
      remoteAddress,
    });
    return { status: answer.statusCode, body: answer.body };
  };
}
