import type { AppContext } from '../../../context.js';
import { ProblemError } from '../../../errors.js';
import { AuditEventListQuery, AuditEventPageSchema } from '../../../schemas/audit-event.js';
import { problemResponses } from '../../../schemas/common.js';
import { answer } from '../../../schemas/responses.js';
import { WorkspaceParams } from '../../../schemas/workspace.js';
import { toAuditEventResource } from '../../../services/audit-log.js';
import { pageRequest, toEnvelope } from '../../../web/pagination.js';
import { principalOf } from '../../auth.js';
import type { FastifyTypeBox } from '../../types.js';
import { operation } from './operation.js';

/** The audit log of a workspace (issue 43, item 4): an addition to the spec, for its owners' tokens. */
export function registerAuditEventRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.get(
    '/workspaces/:workspaceId/audit-events',
    operation('workspaces:read', {
      operationId: 'listAuditEvents',
      tags: ['Workspaces'],
      summary: 'List a workspace’s audit events',
      description:
        'An addition to the spec: who changed what in the workspace, when and from where (its people, keys, settings, forms, templates and plan, every export, ' +
        'file download, erasure and deletion of submissions), newest first, paged as the other lists are, kept for `FORMGATE_AUDIT_RETENTION_DAYS`. ' +
        'For the workspace’s owners only: a member who is no owner gets `403 forbidden`, and an automation-tool key gets `403 forbidden` whatever its workspace.',
      params: WorkspaceParams,
      querystring: AuditEventListQuery,
      response: { 200: answer(AuditEventPageSchema, 'A page of audit events, newest first.'), ...problemResponses('upgrade_required', 'forbidden') },
    }),
    async (request) => {
      const principal = principalOf(request);
      if (principal.automationKeyId !== undefined)
        throw new ProblemError('forbidden', 'An automation-tool key cannot read the audit log; use an API token of an owner.');
      const { workspaceId } = request.params;
      const { group, actor, from, to } = request.query;
      const list = `audit:${workspaceId}`;
      const input = { group, actor, from: from === undefined ? undefined : Date.parse(from), to: to === undefined ? undefined : Date.parse(to) };
      const page = await ctx.auditEvents.forWorkspace(principal.userId, workspaceId, input, pageRequest(ctx.cursors, list, request.query), { api: true });
      return toEnvelope(ctx.cursors, list, page, toAuditEventResource);
    },
  );
}
