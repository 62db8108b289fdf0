import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { FormParams } from '../../../schemas/form.js';
import { answer } from '../../../schemas/responses.js';
import { SubmissionParams } from '../../../schemas/submission.js';
import { TriageListQuery, TriagePageSchema, TriageUpdateBody } from '../../../schemas/triage.js';
import { WorkspaceParams } from '../../../schemas/workspace.js';
import type { SubmissionScope } from '../../../services/submissions.js';
import type { SubmissionTriage } from '../../../services/triage.js';
import type { Label } from '../../../domain/labels.js';
import { principalOf } from '../../auth.js';
import { envelopeJson, pageRequest } from '../../../web/pagination.js';
import type { FastifyTypeBox } from '../../types.js';
import { operation } from './operation.js';
import { extendedJson, sendJsonText } from './submissions.js';

/** A triage as the API writes it: times as ISO 8601, with the labels the submission carries. */
function triageJson(triage: SubmissionTriage, labels: Label[]) {
  return {
    submissionId: triage.submissionId,
    formId: triage.formId,
    status: triage.status,
    doneAt: triage.doneAt === null ? null : new Date(triage.doneAt).toISOString(),
    assigneeId: triage.assigneeId,
    labels: labels.map(({ id, name, color }) => ({ id, name, color })),
  };
}

const LIST_DESCRIPTION =
  'An addition to the spec: the accepted submissions, newest first, each a Submission with its `triage`, optionally only open or done ones (`status`) and only those of one assignee (`assigneeId`, `none` for nobody). ' +
  'Paged as the submission lists are. The spec’s submission lists are unchanged and list every accepted submission, open or done.';

/** Triage through the API (issue 41, item 9): a resource of its own beside the spec's Submission, with the existing scopes. */
export function registerTriageRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.get(
    '/submissions/:submissionId/triage',
    operation('submissions:read', {
      operationId: 'getSubmissionTriage',
      tags: ['Submissions'],
      summary: 'Get a submission’s triage',
      description: 'An addition to the spec: whether the team has marked the submission done, and who of the workspace it is assigned to.',
      params: SubmissionParams,
      response: { 200: answer(Type.Ref('Triage'), 'The submission’s triage.'), ...problemResponses('upgrade_required') },
    }),
    async (request) => {
      const { submissionId } = request.params;
      const triage = await ctx.triage.get(principalOf(request).userId, submissionId, { api: true });
      return triageJson(triage, (await ctx.labels.labelsOf([submissionId])).get(submissionId) ?? []);
    },
  );

  app.patch(
    '/submissions/:submissionId/triage',
    operation('submissions:write', {
      operationId: 'updateSubmissionTriage',
      tags: ['Submissions'],
      summary: 'Mark a submission done or open, or assign it',
      description:
        'An addition to the spec: `status` marks it done (the time is kept; marking done again keeps the first) or open again; `assigneeId` assigns it to a member of its workspace, or to nobody with null; ' +
        '`labelIds` replaces the labels it carries. An assignee who is not a member, or a label of another workspace, is `400 validation_error` and nothing changes. ' +
        'The assignee is emailed a link to the submission, unless the token is theirs.',
      params: SubmissionParams,
      body: TriageUpdateBody,
      response: { 200: answer(Type.Ref('Triage'), 'The submission’s triage after the change.'), ...problemResponses('upgrade_required') },
    }),
    async (request) => {
      const { userId } = principalOf(request);
      const { submissionId } = request.params;
      const { labelIds, ...change } = request.body;
      // every part checked before any is written: a refused body changes nothing
      if (labelIds !== undefined) await ctx.labels.checkLabels(userId, submissionId, labelIds);
      const saved =
        change.status !== undefined || change.assigneeId !== undefined
          ? await ctx.triage.update({ id: userId }, submissionId, change, { api: true })
          : await ctx.triage.get(userId, submissionId, { api: true });
      const labels =
        labelIds !== undefined
          ? await ctx.labels.setLabels(userId, submissionId, labelIds)
          : ((await ctx.labels.labelsOf([submissionId])).get(submissionId) ?? []);
      return triageJson(saved, labels);
    },
  );

  const list = (
    scope: SubmissionScope,
    name: string,
    query: { status?: 'open' | 'done'; assigneeId?: string; labelId?: string; limit?: number; startingAfter?: string },
    userId: string,
  ) =>
    ctx.submissions
      .listSubmissions(
        userId,
        scope,
        pageRequest(ctx.cursors, name, query),
        {
          ...(query.status ? { state: query.status } : {}),
          ...(query.assigneeId ? { assigneeId: query.assigneeId === 'none' ? null : query.assigneeId } : {}),
          ...(query.labelId ? { labelId: query.labelId } : {}),
        },
        { api: true },
      )
      .then(async (page) => {
        const ids = page.rows.map((row) => row.id);
        const [triage, labels] = await Promise.all([ctx.triage.triageOf(ids), ctx.labels.labelsOf(ids)]);
        return envelopeJson(ctx.cursors, name, page, (row) => extendedJson(row, { triage: triageJson(triage.get(row.id)!, labels.get(row.id) ?? []) }));
      });

  app.get(
    '/forms/:formId/triage',
    operation('submissions:read', {
      operationId: 'listFormTriage',
      tags: ['Submissions'],
      summary: 'List a form’s submissions with their triage',
      description: LIST_DESCRIPTION,
      params: FormParams,
      querystring: TriageListQuery,
      response: { 200: answer(TriagePageSchema, 'A page of submissions with their triage, newest first.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      const { formId } = request.params;
      return sendJsonText(reply, await list({ formId }, `triage:form:${formId}`, request.query, principalOf(request).userId));
    },
  );

  app.get(
    '/workspaces/:workspaceId/triage',
    operation('submissions:read', {
      operationId: 'listWorkspaceTriage',
      tags: ['Submissions'],
      summary: 'List a workspace’s submissions with their triage',
      description: LIST_DESCRIPTION,
      params: WorkspaceParams,
      querystring: TriageListQuery,
      response: { 200: answer(TriagePageSchema, 'A page of submissions with their triage, newest first.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      const { workspaceId } = request.params;
      return sendJsonText(reply, await list({ workspaceId }, `triage:workspace:${workspaceId}`, request.query, principalOf(request).userId));
    },
  );
}
