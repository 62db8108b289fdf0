import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { TestSent } from '../../services/test-submissions.js';
import { setFlash } from '../flash.js';
import { formFrame } from '../form-frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { type SubmitTarget, submitPoster } from '../submit-post.js';
import { FormSetupPage, TestResultPage } from '../views/form-setup-page.js';

type FormParams = { Params: { formId: string } };
type ResultParams = { Params: { formId: string; submissionId: string } };

/** A form's Setup tab: its address and snippets, and "Send a test submission" through the real submit surface. */
export function registerFormSetupRoutes(app: FastifyInstance, ctx: AppContext, submit: SubmitTarget): void {
  async function setupPage(request: FastifyRequest<FormParams>, reply: FastifyReply, refused?: Extract<TestSent, { stored: false }>) {
    const { frame, form } = await formFrame(request, reply, ctx, request.params.formId);
    const page = FormSetupPage({ frame, form, address: `${ctx.config.submitUrl}/${form.id}`, refused });
    return sendPage(reply, page, refused ? refused.status : 200);
  }

  app.get<FormParams>('/forms/:formId/setup', { preHandler: requireAccount }, (request, reply) => setupPage(request, reply));

  app.post<FormParams>('/forms/:formId/test-submission', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const sent = await ctx.testSubmissions.send(user.id, request.params.formId, user.email, submitPoster(submit, request.ip));
    if (!sent.stored) return setupPage(request, reply, sent);
    setFlash(reply, 'Test submission sent');
    return seeOther(reply, `/forms/${request.params.formId}/test-submission/${sent.submissionId}`);
  });

  app.get<ResultParams>('/forms/:formId/test-submission/:submissionId', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { frame, form } = await formFrame(request, reply, ctx, request.params.formId);
    const outcome = await ctx.testSubmissions.outcome(user.id, form.id, request.params.submissionId);
    return sendPage(reply, TestResultPage({ frame, form, outcome }));
  });
}
