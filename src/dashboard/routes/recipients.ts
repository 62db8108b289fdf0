import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import type { ConfirmationView } from '../../services/recipients.js';
import { setFlash, takeFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { PageError } from '../page-error.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { formPath } from '../views/form-layout.js';
import { RecipientConfirmationPage } from '../views/recipient-pages.js';
import { queuedMailWords } from '../mail-words.js';

type SecretParams = { Params: { secret: string } };
type Body = Record<string, unknown> | undefined;

const NOT_VALID = new PageError(
  404,
  'Link not valid',
  'This link is not valid, or a newer one was sent since: use the link in the newest email, or ask whoever listed your address to send it again.',
);

/**
 * The confirmation link of a notification address (no login) and the settings page's "Send link".
 * GET only shows; the answer is a POST with the CSRF token like every change of the dashboard.
 */
export function registerRecipientRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<SecretParams>('/recipients/:secret', async (request, reply) => {
    const view = await ctx.recipients.open(request.params.secret);
    if (!view) throw NOT_VALID;
    const page = RecipientConfirmationPage({ csrf: csrfToken(request, reply), view, secret: request.params.secret, flash: takeFlash(request, reply) });
    return sendPage(reply, page);
  });

  app.post<SecretParams & { Body: Body }>('/recipients/:secret', async (request, reply) => {
    const answer = request.body?.answer;
    if (answer !== 'confirm' && answer !== 'decline') throw new PageError(400, 'Something is not right', 'Choose one of the two buttons on the page.');
    let view: ConfirmationView;
    try {
      view = await ctx.recipients.answer(request.params.secret, answer === 'confirm' ? 'confirmed' : 'declined');
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw NOT_VALID;
      throw error;
    }
    request.log.info({ workspaceId: view.workspaceId, state: view.state }, 'notification address answered its confirmation link');
    setFlash(reply, view.state === 'confirmed' ? 'Confirmed: you will receive these notifications' : 'Declined: you will receive none of these notifications');
    return seeOther(reply, `/recipients/${encodeURIComponent(request.params.secret)}`);
  });

  app.post<{ Params: { formId: string }; Body: Body }>('/forms/:formId/settings/recipients/resend', { preHandler: requireAccount }, async (request, reply) => {
    const address = typeof request.body?.resend === 'string' ? request.body.resend : '';
    try {
      const email = await ctx.recipients.resend(accountOf(request).user.id, request.params.formId, address);
      request.log.info({ formId: request.params.formId }, 'confirmation link sent to a notification address');
      setFlash(
        reply,
        queuedMailWords(ctx.config, { sent: `Confirmation link sent to ${email}`, written: `Confirmation link to ${email} written to the mail folder` }),
      );
    } catch (error) {
      // too soon, or nothing to ask (confirmed, declined, a member's): said on the settings page
      if (!(error instanceof ProblemError) || (error.code !== 'rate_limited' && error.code !== 'conflict')) throw error;
      setFlash(reply, `Not sent: ${error.detail}`, 'warning');
    }
    return seeOther(reply, `${formPath(request.params.formId, 'settings')}#notificationEmails`);
  });
}
