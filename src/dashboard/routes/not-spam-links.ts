import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { setFlash, takeFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { PageError } from '../page-error.js';
import { seeOther, sendPage } from '../render.js';
import { NotSpamLinkPage } from '../views/not-spam-link-page.js';

type TokenParams = { Params: { token: string } };

const NOT_VALID = new PageError(
  404,
  'Link not valid',
  'This “Not spam” link was changed, has expired (links work for 14 days), or you are no longer a member of the workspace. Nothing was changed. Log in and use the form’s spam folder instead.',
);

/**
 * The spam digest's "Not spam" link (no login). GET only shows the submission (mail scanners open
 * links); the POST, with the CSRF token like every change of the dashboard, moves it to the inbox as
 * the member the link was signed for.
 */
export function registerNotSpamLinkRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<TokenParams>('/not-spam/:token', async (request, reply) => {
    const view = await ctx.notSpamLinks.open(request.params.token).catch(notValid);
    const page = NotSpamLinkPage({ csrf: csrfToken(request, reply), view, token: request.params.token, flash: takeFlash(request, reply) });
    return sendPage(reply, page);
  });

  app.post<TokenParams>('/not-spam/:token', async (request, reply) => {
    const back = `/not-spam/${encodeURIComponent(request.params.token)}`;
    try {
      const moved = await ctx.notSpamLinks.use(request.params.token);
      request.log.info({ submissionId: moved.submissionId, userId: moved.userId, status: moved.status }, 'submission marked not spam from the spam digest');
      setFlash(
        reply,
        moved.status === 'held' ? 'Moved to the inbox: held past the allowance until it grows' : 'Moved to the inbox; its deliveries are on their way',
      );
    } catch (error) {
      if (!(error instanceof ProblemError) || error.code !== 'conflict') return notValid(error);
      setFlash(reply, 'Nothing changed: it had already left the spam folder', 'warning');
    }
    return seeOther(reply, back);
  });
}

function notValid(error: unknown): never {
  if (error instanceof ProblemError && error.code === 'not_found') throw NOT_VALID;
  throw error;
}
