import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { answer, created } from '../../../schemas/responses.js';
import { WorkspaceBody, WorkspaceListQuery, WorkspacePageSchema, WorkspaceParams, WorkspacePatchBody } from '../../../schemas/workspace.js';
import { toWorkspaceResource } from '../../../services/workspaces.js';
import { principalOf } from '../../auth.js';
import { pageRequest, toEnvelope } from '../../../web/pagination.js';
import type { FastifyTypeBox } from '../../types.js';
import { operation } from './operation.js';

export function registerWorkspaceRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.get(
    '/workspaces',
    operation('workspaces:read', {
      operationId: 'listWorkspaces',
      tags: ['Workspaces'],
      summary: 'List the workspaces the token’s account belongs to',
      description: 'Newest first, on any plan, so a client can find which workspace is upgraded. An automation-tool key lists its own workspace only.',
      querystring: WorkspaceListQuery,
      response: { 200: answer(WorkspacePageSchema, 'A page of workspaces, newest first.'), ...problemResponses() },
    }),
    async (request) => {
      const { userId, workspaceId } = principalOf(request);
      // an automation-tool key reaches its own workspace only: a list of one
      if (workspaceId !== undefined)
        return { data: [toWorkspaceResource(await ctx.workspaces.getForMember(userId, workspaceId), ctx.plans)], hasMore: false, nextCursor: null };
      const list = `workspaces:${userId}`;
      const page = await ctx.workspaces.listForUser(userId, pageRequest(ctx.cursors, list, request.query));
      return toEnvelope(ctx.cursors, list, page, (w) => toWorkspaceResource(w, ctx.plans));
    },
  );

  app.post(
    '/workspaces',
    operation('workspaces:write', {
      operationId: 'createWorkspace',
      tags: ['Workspaces'],
      summary: 'Create a workspace',
      description:
        'Needs an account that already belongs to an upgraded workspace (else `upgrade_required`). The new workspace starts on the installation’s default plan (FREE unless the operator chose another), and as an account has one free workspace, one that still owns a FREE workspace gets `quota_exceeded` when the new one would be FREE too.',
      body: WorkspaceBody,
      response: {
        201: created(Type.Ref('Workspace'), 'The new workspace.', '/workspaces/{workspaceId}'),
        ...problemResponses('upgrade_required', 'quota_exceeded'),
      },
    }),
    async (request, reply) => {
      const workspace = await ctx.workspaces.createWorkspace(principalOf(request).userId, request.body.name, { api: true });
      return reply
        .code(201)
        .header('location', `${ctx.config.baseUrl}/workspaces/${encodeURIComponent(workspace.id)}`)
        .send(toWorkspaceResource(workspace, ctx.plans));
    },
  );

  app.patch(
    '/workspaces/:workspaceId',
    operation('workspaces:write', {
      operationId: 'renameWorkspace',
      tags: ['Workspaces'],
      summary: 'Rename a workspace',
      description:
        'Needs an upgraded workspace. A Workspace read from the API may be sent back whole: `id` and `plan` must be the workspace’s own ' +
        '(a plan changes with a payment), `submissionsQuota`, `createdAt` and `updatedAt` are ignored.',
      params: WorkspaceParams,
      body: WorkspacePatchBody,
      response: { 200: answer(Type.Ref('Workspace'), 'The renamed workspace.'), ...problemResponses('upgrade_required') },
    }),
    async (request) => {
      const { name, id, plan } = request.body;
      const workspace = await ctx.workspaces.renameWorkspace(principalOf(request).userId, request.params.workspaceId, name, {
        api: true,
        sentBack: { id, plan },
      });
      return toWorkspaceResource(workspace, ctx.plans);
    },
  );
}
