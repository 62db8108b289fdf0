import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { formPath } from '../views/form-layout.js';
import { NewFormPage } from '../views/new-form-page.js';

type NewFormRequest = { Params: { workspaceId: string }; Body: { name?: unknown; notifyMe?: unknown } };

/** New form: a name, then the form's Setup page with its address and snippets. */
export function registerNewFormRoutes(app: FastifyInstance, ctx: AppContext): void {
  async function newFormPage(
    request: FastifyRequest<NewFormRequest>,
    reply: FastifyReply,
    name: string,
    notifyMe: boolean,
    errors?: FieldErrors,
    status = 200,
  ) {
    const { frame, workspace } = await workspaceFrame(request, reply, ctx, request.params.workspaceId, 'forms');
    const { formCount } = await ctx.workspaces.counts(workspace.id);
    return sendPage(reply, NewFormPage({ frame, workspace, formCount, name, notifyMe, errors }), status);
  }

  app.get<NewFormRequest>('/w/:workspaceId/forms/new', { preHandler: requireAccount }, (request, reply) => newFormPage(request, reply, '', true));

  app.post<NewFormRequest>('/w/:workspaceId/forms/new', { preHandler: requireAccount }, async (request, reply) => {
    const name = typeof request.body?.name === 'string' ? request.body.name : '';
    // an unchecked box is absent from the post
    const notifyMe = request.body?.notifyMe === 'on';
    const { user } = accountOf(request);
    try {
      // the dashboard's access (no `api`): a FREE workspace makes forms too, up to its plan's count
      const form = await ctx.forms.createForm(user.id, request.params.workspaceId, { name, notificationEmails: notifyMe ? [user.email] : [] });
      // the form's name is the page's heading; a flash holds 300 characters at most
      setFlash(reply, 'Form created: copy its snippet into your page');
      return seeOther(reply, formPath(form.id, 'setup'));
    } catch (error) {
      // an outsider's post is the 404 page, whatever it held; the quota is the API's 403
      const errors = fieldErrors(error);
      return newFormPage(request, reply, name, notifyMe, errors, error instanceof ProblemError ? error.status : 400);
    }
  });
}
