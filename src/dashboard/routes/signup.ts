import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { fieldErrors } from '../field-errors.js';
import { csrfToken } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { type SessionCookie, startSession } from '../session.js';
import { SignupClosedPage, SignupPage } from '../views/auth-pages.js';

interface SignupBody {
  email?: string;
  password?: string;
  invitation?: string;
}

/** Whether the sign-up page is open to anyone: before the first account, or with FORMGATE_SIGNUP=open. */
export async function anyoneMaySignUp(ctx: AppContext): Promise<boolean> {
  return ctx.config.signup === 'open' || !(await ctx.users.hasAnyAccount());
}

export function registerSignupRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie): void {
  app.get('/signup', async (request, reply) => {
    if (request.account) return seeOther(reply, '/');
    const first = !(await ctx.users.hasAnyAccount());
    if (!first && ctx.config.signup !== 'open') return closed(reply);
    return sendPage(reply, SignupPage({ csrf: csrfToken(request, reply), first }));
  });

  app.post<{ Body: SignupBody }>('/signup', async (request, reply) => {
    const first = !(await ctx.users.hasAnyAccount());
    if (!first && ctx.config.signup !== 'open') return closed(reply);
    const email = String(request.body?.email ?? '');
    const password = String(request.body?.password ?? '');
    try {
      const { user } = await ctx.users.createUser(email, password);
      await startSession(request, reply, ctx.sessions, cookie, user.id);
      return seeOther(reply, '/');
    } catch (error) {
      return refused(request, reply, { email, first, errors: fieldErrors(error) });
    }
  });

  function refused(request: FastifyRequest, reply: FastifyReply, page: { email: string; first: boolean; errors: Record<string, string> }) {
    return sendPage(reply, SignupPage({ csrf: csrfToken(request, reply), ...page }), 400);
  }

  function closed(reply: FastifyReply) {
    return sendPage(reply, SignupClosedPage({ byInvitation: ctx.config.signup === 'invite' }), 403);
  }
}
