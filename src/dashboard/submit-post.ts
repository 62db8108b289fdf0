import type { Server } from 'node:http';
import inject from 'light-my-request';
import type { SubmitPost } from '../services/test-submissions.js';

/** The submit surface as the dashboard reaches it (app.ts hands it in): its server, whose handler takes the post. */
export interface SubmitTarget {
  server: Server;
}

/**
 * A post to the submit surface made in this process (light-my-request, what Fastify's `inject()`
 * is built on): the same handler, checks and writer as a visitor's post, without a socket. It
 * comes from `remoteAddress` (the person's own), so their rate limit is the one it counts against.
 */
export function submitPoster(surface: SubmitTarget, remoteAddress: string): SubmitPost {
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
