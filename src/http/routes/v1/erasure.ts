import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { answer } from '../../../schemas/responses.js';
import { ErasureBody, ErasurePreviewSchema, ErasureResultSchema } from '../../../schemas/erasure.js';
import { WorkspaceParams } from '../../../schemas/workspace.js';
import { principalOf } from '../../auth.js';
import type { FastifyTypeBox } from '../../types.js';
import type { ExportLimits } from '../../../web/export-limits.js';
import { operation } from './operation.js';

/** Erasing a person (an addition to the spec): a preview that counts, and the deletion. POST both, so the address stays out of URLs and logs. */
export function registerErasureRoutes(app: FastifyTypeBox, ctx: AppContext, exportLimits: ExportLimits): void {
  app.post(
    '/workspaces/:workspaceId/erasure/preview',
    operation('submissions:write', {
      operationId: 'previewErasure',
      tags: ['Submissions'],
      summary: 'Count the submissions that hold an email address',
      description:
        'An addition to the spec, the first step of answering a request to erase a person: how many submissions of the workspace (inbox, held and spam) hold the address. ' +
        'Nothing is changed. Needs `submissions:write`, as the erasure itself does. ' +
        'It reads the whole workspace, so it counts against the account’s limit shared with exports and erasures (at most 2 at once, and `FORMGATE_RATE_LIMIT_EXPORTS`, 60 an hour by default): past it, `429 rate_limited` with `Retry-After`.',
      params: WorkspaceParams,
      body: ErasureBody,
      response: { 200: answer(ErasurePreviewSchema, 'How many submissions of the workspace hold the address.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      const { userId } = principalOf(request);
      return exportLimits.run(userId, reply, () => ctx.erasure.preview(userId, request.params.workspaceId, request.body.email, { api: true }));
    },
  );

  app.post(
    '/workspaces/:workspaceId/erasure',
    operation('submissions:write', {
      operationId: 'erasePerson',
      tags: ['Submissions'],
      summary: 'Delete every submission that holds an email address',
      description:
        'An addition to the spec: deletes for good every submission of the workspace (inbox, held and spam) that holds the address, with its deliveries (emails, webhooks and Slack messages ' +
        'not yet sent, and the records of those sent). Cannot be undone. The allowance used and the day counts stay as they were, as when a submission is deleted one by one. ' +
        'A submission whose delivery is being sent at that moment is left and counted in `remaining`. ' +
        'Counts against the account’s limit shared with exports and previews (at most 2 at once, and `FORMGATE_RATE_LIMIT_EXPORTS`, 60 an hour by default): past it, `429 rate_limited` with `Retry-After`.',
      params: WorkspaceParams,
      body: ErasureBody,
      response: { 200: answer(ErasureResultSchema, 'How many submissions were deleted, and how many were left.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      const { userId } = principalOf(request);
      const result = await exportLimits.run(userId, reply, () => ctx.erasure.erase(userId, request.params.workspaceId, request.body.email, { api: true }));
      request.log.info(
        { workspaceId: request.params.workspaceId, deleted: result.deleted, remaining: result.remaining },
        'erased an email address’s submissions',
      );
      return result;
    },
  );
}
