import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { ErasureBody, ErasurePreviewSchema, ErasureResultSchema } from '../../../schemas/erasure.js';
import { WorkspaceParams } from '../../../schemas/workspace.js';
import { principalOf } from '../../auth.js';
import type { FastifyTypeBox } from '../../types.js';
import { operation } from './operation.js';

/** Erasing a person (an addition to the spec): a preview that counts, and the deletion. POST both, so the address stays out of URLs and logs. */
export function registerErasureRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.post(
    '/workspaces/:workspaceId/erasure/preview',
    operation('submissions:write', {
      operationId: 'previewErasure',
      tags: ['Submissions'],
      summary: 'Count the submissions that hold an email address',
      description:
        'An addition to the spec, the first step of answering a request to erase a person: how many submissions of the workspace (inbox, held and spam) hold the address. ' +
        'Nothing is changed. Needs `submissions:write`, as the erasure itself does.',
      params: WorkspaceParams,
      body: ErasureBody,
      response: { 200: ErasurePreviewSchema, ...problemResponses('upgrade_required') },
    }),
    async (request) => ctx.erasure.preview(principalOf(request).userId, request.params.workspaceId, request.body.email, { api: true }),
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
        'A submission whose delivery is being sent at that moment is left and counted in `remaining`.',
      params: WorkspaceParams,
      body: ErasureBody,
      response: { 200: ErasureResultSchema, ...problemResponses('upgrade_required') },
    }),
    async (request) => {
      const result = await ctx.erasure.erase(principalOf(request).userId, request.params.workspaceId, request.body.email, { api: true });
      request.log.info(
        { workspaceId: request.params.workspaceId, deleted: result.deleted, remaining: result.remaining },
        'erased an email address’s submissions',
      );
      return result;
    },
  );
}
