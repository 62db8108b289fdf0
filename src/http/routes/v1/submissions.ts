import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { answer, noContent } from '../../../schemas/responses.js';
import { FormParams } from '../../../schemas/form.js';
import { SubmissionExportQuery, SubmissionExportResponse, SubmissionListQuery, SubmissionPageSchema, SubmissionParams } from '../../../schemas/submission.js';
import { WorkspaceParams } from '../../../schemas/workspace.js';
import { submissionJson } from '../../../services/submissions.js';
import { sendExport } from '../../../web/attachment.js';
import { principalOf } from '../../auth.js';
import type { ExportLimits } from '../../../web/export-limits.js';
import type { SearchLimits } from '../../../web/search-limits.js';
import { envelopeJson, pageRequest } from '../../../web/pagination.js';
import type { FastifyTypeBox } from '../../types.js';
import { operation } from './operation.js';

/**
 * Sends a page serialised by envelopeJson: Fastify sends a string of a JSON type as it is. The
 * route's response schema still documents the page (OpenAPI).
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

/** The Submission of 2.4 as submissionJson writes it, followed by `extra`'s fields: the spec's fields are written by one function everywhere. */
export function extendedJson(row: { id: string; formId: string; data: unknown; createdAt: number }, extra: Record<string, unknown>): string {
  const fields = Object.entries(extra).map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`);
  return `${submissionJson(row).slice(0, -1)},${fields.join(',')}}`;
}

export function registerSubmissionRoutes(app: FastifyTypeBox, ctx: AppContext, searchLimits: SearchLimits, exportLimits: ExportLimits): void {
  /** A request with a search counts against the caller's (its token's) and its address's search limits. */
  const countSearch = (request: FastifyRequest, reply: FastifyReply, search: string | undefined) =>
    search === undefined ? undefined : searchLimits.take(`token:${principalOf(request).token.id}`, request.ip, reply);

  app.get(
    '/forms/:formId/submissions',
    operation('submissions:read', {
      operationId: 'listFormSubmissions',
      tags: ['Submissions'],
      summary: 'List a form’s submissions',
      description: 'Newest first; spam and deleted submissions are excluded.',
      params: FormParams,
      querystring: SubmissionListQuery,
      response: { 200: answer(SubmissionPageSchema, 'A page of submissions, newest first.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      await countSearch(request, reply, request.query.search);
      const { formId } = request.params;
      const list = `submissions:form:${formId}`;
      const page = await ctx.submissions.listSubmissions(
        principalOf(request).userId,
        { formId },
        pageRequest(ctx.cursors, list, request.query),
        { search: request.query.search },
        { api: true },
      );
      return sendJsonText(reply, envelopeJson(ctx.cursors, list, page, submissionJson));
    },
  );

  app.get(
    '/workspaces/:workspaceId/submissions',
    operation('submissions:read', {
      operationId: 'listWorkspaceSubmissions',
      tags: ['Submissions'],
      summary: 'List the submissions of every form in a workspace',
      description: 'Newest first; spam and deleted submissions are excluded.',
      params: WorkspaceParams,
      querystring: SubmissionListQuery,
      response: { 200: answer(SubmissionPageSchema, 'A page of submissions, newest first.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      await countSearch(request, reply, request.query.search);
      const { workspaceId } = request.params;
      const list = `submissions:workspace:${workspaceId}`;
      const page = await ctx.submissions.listSubmissions(
        principalOf(request).userId,
        { workspaceId },
        pageRequest(ctx.cursors, list, request.query),
        { search: request.query.search },
        { api: true },
      );
      return sendJsonText(reply, envelopeJson(ctx.cursors, list, page, submissionJson));
    },
  );

  app.get(
    '/forms/:formId/submissions/export',
    {
      // NOTE: Fastify's automatic HEAD would run the whole export and throw it away
      exposeHeadRoute: false,
      ...operation('submissions:read', {
        operationId: 'exportFormSubmissions',
        tags: ['Submissions'],
        summary: 'Export a form’s submissions as CSV or JSON',
        description:
          'An addition to the spec: every accepted submission of the form (not a page), newest first, with the list’s `search` and an optional time range, ' +
          'streamed as a CSV or JSON file. It reads every row, so it counts against the account’s limit shared with erasures (at most 2 at once, and ' +
          '`FORMGATE_RATE_LIMIT_EXPORTS`, 60 an hour by default): past it, `429 rate_limited` with `Retry-After`.',
        params: FormParams,
        querystring: SubmissionExportQuery,
        response: { 200: SubmissionExportResponse, ...problemResponses('upgrade_required') },
      }),
    },
    async (request, reply) => {
      const { format, search, from, to } = request.query;
      await countSearch(request, reply, search);
      const filter = { search, from: from === undefined ? undefined : Date.parse(from), to: to === undefined ? undefined : Date.parse(to) };
      const { userId } = principalOf(request);
      // held until the file is out (or the client hangs up)
      const exported = await exportLimits.run(
        userId,
        reply,
        () => ctx.exports.exportSubmissions(userId, { formId: request.params.formId }, format, filter, { api: true }),
        'sent',
      );
      return sendExport(reply, exported, format);
    },
  );

  app.delete(
    '/submissions/:submissionId',
    operation('submissions:write', {
      operationId: 'deleteSubmission',
      tags: ['Submissions'],
      summary: 'Delete a submission',
      description: 'A submission quarantined as spam cannot be deleted early: `409 conflict`.',
      params: SubmissionParams,
      response: { 204: noContent('Deleted; no body.'), ...problemResponses('upgrade_required', 'conflict') },
    }),
    async (request, reply) => {
      await ctx.submissions.deleteSubmission(principalOf(request).userId, request.params.submissionId, { api: true });
      return reply.code(204).send(null);
    },
  );
}
