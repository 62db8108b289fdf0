import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { setFlash } from '../flash.js';
import { seeOther } from '../render.js';
import { readableView, viewQuery } from '../saved-view-links.js';
import { accountOf, requireAccount } from '../session.js';
import { problemText } from './submission.js';

type SaveBody = { name?: unknown; form?: unknown; query?: unknown };

/** Saving the inbox's view as it is shown, and deleting a saved one (issue 41, item 8): each member's own. */
export function registerSavedViewRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Params: { workspaceId: string }; Body: SaveBody }>('/w/:workspaceId/views', { preHandler: requireAccount }, async (request, reply) => {
    const { workspaceId } = request.params;
    const userId = accountOf(request).user.id;
    const formId = typeof request.body?.form === 'string' && request.body.form !== '' ? request.body.form : null;
    // a form's inbox: a form of this workspace, else the 404 page, as its inbox would be
    if (formId !== null && !(await ctx.submissions.formNames(userId, workspaceId, [formId])).has(formId)) {
      throw new ProblemError('not_found', `Form ${formId} was not found.`);
    }
    const inbox = formId === null ? `/w/${workspaceId}/submissions` : `/forms/${formId}`;
    const raw = typeof request.body?.query === 'string' ? request.body.query : '';
    const query = viewQuery(Object.fromEntries(new URLSearchParams(raw)));
    const only = new URLSearchParams(query).get('form');
    const back = query ? `${inbox}?${query}` : inbox;
    if (!readableView(query, userId) || (only && !(await ctx.submissions.formNames(userId, workspaceId, [only])).has(only))) {
      setFlash(reply, 'The view was not saved: it is not a view of this inbox.');
      return seeOther(reply, inbox);
    }
    try {
      const view = await ctx.savedViews.save(userId, workspaceId, { name: request.body?.name, formId, query });
      setFlash(reply, `View “${view.name}” saved`);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      setFlash(reply, `The view was not saved: ${problemText(error)}`);
    }
    return seeOther(reply, back);
  });

  app.post<{ Params: { workspaceId: string; viewId: string } }>(
    '/w/:workspaceId/views/:viewId/delete',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { workspaceId, viewId } = request.params;
      const view = await ctx.savedViews.remove(accountOf(request).user.id, workspaceId, viewId);
      setFlash(reply, `View “${view.name}” deleted`);
      return seeOther(reply, view.formId === null ? `/w/${workspaceId}/submissions` : `/forms/${view.formId}`);
    },
  );
}
