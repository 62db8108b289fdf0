import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { setFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { SessionsPage } from '../views/sessions-page.js';

/** The account's signed-in browsers, each one signed out on its own (issue 43, item 5). */
export function registerSessionRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/account/sessions', { preHandler: requireAccount }, async (request, reply) => {
    const { user, session } = accountOf(request);
    const [frame, sessions] = await Promise.all([frameFor(request, reply, ctx, { section: 'account' }), ctx.sessions.listLive(user.id)]);
    return sendPage(reply, SessionsPage({ frame, sessions, currentIdHash: session.idHash }));
  });

  // Only the account's own sessions: another's (or an ended one) is the same "not found" as a made-up one.
  app.post<{ Body: { session?: unknown } }>('/account/sessions/end', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const idHash = typeof request.body?.session === 'string' ? request.body.session : '';
    const ended = /^[0-9a-f]{64}$/.test(idHash) && (await ctx.sessions.endOne(user.id, idHash));
    request.log.info({ userId: user.id, ended }, 'session signed out from the sessions page');
    setFlash(reply, ended ? 'That browser is signed out.' : 'That session had already ended.');
    return seeOther(reply, '/account/sessions');
  });
}
