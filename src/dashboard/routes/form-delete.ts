import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { setFlash } from '../flash.js';
import { formFrame } from '../form-frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { DeleteFormPage } from '../views/form-confirm-pages.js';

type FormParams = { Params: { formId: string } };

/** Deleting a form, after a page that counts what goes with it. Any member may, as any member's token may through the API. */
export function registerFormDeleteRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<FormParams>('/forms/:formId/delete', { preHandler: requireAccount }, async (request, reply) => {
    const { frame, form } = await formFrame(request, reply, ctx, request.params.formId);
    const counts = await ctx.forms.deletionCounts(accountOf(request).user.id, form.id);
    return sendPage(reply, DeleteFormPage({ frame, form, counts }));
  });

  app.post<FormParams>('/forms/:formId/delete', { preHandler: requireAccount }, async (request, reply) => {
    const userId = accountOf(request).user.id;
    const form = await ctx.forms.formForMember(userId, request.params.formId);
    await ctx.forms.deleteForm(userId, form.id);
    setFlash(reply, `Form “${form.name}” deleted`);
    return seeOther(reply, `/w/${form.workspaceId}`);
  });
}
