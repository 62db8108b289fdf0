import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { workspaceNameForHost } from '../../domain/workspace-name.js';
import { TEAM_MODE_WITH_OPEN_SIGNUP } from '../../services/instance-settings.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { type SessionCookie, startSession } from '../session.js';
import type { SignupEmailLimits } from '../signup-limits.js';
import { SetupPage } from '../views/setup-page.js';

interface SetupBody {
  email?: string;
  password?: string;
  usage?: string;
  workspaceName?: string;
}

/**
 * "Set up Formgate": where a fresh installation opens (`/` and `/login` lead here while no account
 * exists). Once the first account exists the page is gone: both methods lead to the login page.
 */
export function registerSetupRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie, limits: SignupEmailLimits): void {
  const plansFromEnvironment = ctx.config.defaultPlanFromEnvironment;
  const openSignup = ctx.config.signup === 'open';

  // the first workspace's name, offered from the installation's address ("forms.acme.com": "Acme")
  const offeredName = () => workspaceNameForHost(new URL(ctx.config.publicUrl).hostname);

  app.get('/setup', async (request, reply) => {
    if (!(await ctx.setup.open())) return seeOther(reply, request.account ? '/' : '/login');
    return sendPage(reply, SetupPage({ csrf: csrfToken(request, reply), plansFromEnvironment, openSignup, workspaceName: offeredName() }));
  });

  app.post<{ Body: SetupBody }>('/setup', async (request, reply) => {
    const email = String(request.body?.email ?? '');
    const password = String(request.body?.password ?? '');
    const usage = String(request.body?.usage ?? '');
    // the page always sends the field (required: empty is refused); a script that leaves it out gets the offered name
    const workspaceName = request.body?.workspaceName === undefined ? offeredName() : String(request.body.workspaceName);
    try {
      const { user } = await ctx.setup.setUp(email, password, usage, workspaceName);
      request.log.info(
        { userId: user.id, usage: ctx.config.defaultPlanFromEnvironment ? 'FORMGATE_DEFAULT_PLAN' : usage },
        'installation set up: the first account is the instance admin',
      );
      if (openSignup && ctx.instance.usage() === 'team') request.log.warn({ signup: 'open', usage: 'team' }, TEAM_MODE_WITH_OPEN_SIGNUP);
      await startSession(request, reply, ctx.sessions, cookie, user.id);
      limits.signedUp(request, reply, user.email);
      setFlash(reply, 'Formgate is set up: you are its admin. Create your first form.');
      return seeOther(reply, '/');
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'conflict' && !(await ctx.setup.open())) {
        setFlash(reply, error.detail);
        return seeOther(reply, '/login');
      }
      const page = SetupPage({ csrf: csrfToken(request, reply), email, usage, workspaceName, plansFromEnvironment, openSignup, errors: fieldErrors(error) });
      return sendPage(reply, page, 400);
    }
  });
}
