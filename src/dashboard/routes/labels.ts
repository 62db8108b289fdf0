import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { LabelsPage } from '../views/labels-page.js';
import { problemText, returnTo } from './submission.js';

type LabelBody = { name?: unknown; color?: unknown };

/** A workspace's labels, made and changed by any member, and a submission's own (issue 41, item 7). */
export function registerLabelRoutes(app: FastifyInstance, ctx: AppContext): void {
  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    workspaceId: string,
    refused?: { typed: { name: string; color: string }; error: unknown },
  ) => {
    const { frame } = await workspaceFrame(request, reply, ctx, workspaceId, 'settings');
    const labels = await ctx.labels.list(accountOf(request).user.id, workspaceId);
    const errors = refused ? fieldErrors(refused.error) : undefined;
    return sendPage(reply, LabelsPage({ frame, workspaceId, labels, typed: refused?.typed, errors }), refused ? 400 : 200);
  };

  app.get<{ Params: { workspaceId: string } }>('/w/:workspaceId/labels', { preHandler: requireAccount }, (request, reply) =>
    page(request, reply, request.params.workspaceId),
  );

  app.post<{ Params: { workspaceId: string }; Body: LabelBody }>('/w/:workspaceId/labels', { preHandler: requireAccount }, async (request, reply) => {
    const { workspaceId } = request.params;
    try {
      const label = await ctx.labels.create(accountOf(request).user.id, workspaceId, request.body ?? {});
      setFlash(reply, `Label “${label.name}” added`);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      const typed = { name: String(request.body?.name ?? ''), color: String(request.body?.color ?? '') };
      return page(request, reply, workspaceId, { typed, error });
    }
    return seeOther(reply, `/w/${workspaceId}/labels`);
  });

  app.post<{ Params: { workspaceId: string; labelId: string }; Body: LabelBody }>(
    '/w/:workspaceId/labels/:labelId',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { workspaceId, labelId } = request.params;
      try {
        const label = await ctx.labels.update(accountOf(request).user.id, workspaceId, labelId, request.body ?? {});
        setFlash(reply, `Label “${label.name}” saved`);
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'not_found') throw error;
        setFlash(reply, `Nothing changed: ${problemText(error)}`);
      }
      return seeOther(reply, `/w/${workspaceId}/labels`);
    },
  );

  app.post<{ Params: { workspaceId: string; labelId: string } }>(
    '/w/:workspaceId/labels/:labelId/delete',
    { preHandler: requireAccount },
    async (request, reply) => {
      const label = await ctx.labels.remove(accountOf(request).user.id, request.params.workspaceId, request.params.labelId);
      setFlash(reply, `Label “${label.name}” deleted; it left the submissions that had it`);
      return seeOther(reply, `/w/${label.workspaceId}/labels`);
    },
  );

  // A submission's labels from its page: the ticked boxes are its labels now.
  app.post<{ Params: { submissionId: string }; Body: { label?: unknown; back?: unknown } }>(
    '/submissions/:submissionId/labels',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { submissionId } = request.params;
      const raw = request.body?.label;
      const ids = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((id): id is string => typeof id === 'string' && id !== '');
      try {
        const labels = await ctx.labels.setLabels(accountOf(request).user.id, submissionId, ids, 'not_found');
        setFlash(reply, labels.length === 0 ? 'Labels removed' : 'Labels saved');
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'not_found') throw error;
        setFlash(reply, `Nothing changed: ${problemText(error)}`);
      }
      return seeOther(reply, `${returnTo(request.body?.back, `/submissions/${submissionId}`)}#labels`);
    },
  );
}
