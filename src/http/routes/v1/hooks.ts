import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import {
  CreatedHookSchema,
  HookBody,
  HookListQuery,
  HookPageSchema,
  HookParams,
  HookSampleParams,
  HookSampleQuery,
  HookSampleSchema,
} from '../../../schemas/hook.js';
import { answer, created, noContent } from '../../../schemas/responses.js';
import { toHookResource } from '../../../services/hooks.js';
import { pageRequest, toEnvelope } from '../../../web/pagination.js';
import { principalOf } from '../../auth.js';
import type { FastifyTypeBox } from '../../types.js';
import { operation } from './operation.js';

// A subscription hands its target what the token may already read, so reading submissions is the scope it needs.
const SCOPE = 'submissions:read';

/** REST-hook subscriptions for automation platforms (issue 42, item 2; docs/integrations.md): an addition to the spec. */
export function registerHookRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.post(
    '/hooks',
    operation(SCOPE, {
      operationId: 'createHook',
      tags: ['Automations'],
      summary: 'Subscribe to a form’s events',
      description:
        'An addition to the spec, the REST-hook subscription of Zapier, Make, n8n and Activepieces: each `event` of the form (or of every form of the workspace) is posted to `targetUrl` as a Submission, ' +
        'signed per Standard Webhooks with the `secret` of this answer, retried as a form’s webhook is. A target that answers `410 Gone` is unsubscribed. ' +
        'The subscription goes with the token or automation-tool key that made it (revoked, expired, or its account gone from the workspace). At most 100 per workspace (`quota_exceeded`).',
      body: HookBody,
      response: {
        201: created(CreatedHookSchema, 'The subscription, with its signing secret.', '/hooks/{hookId}'),
        ...problemResponses('upgrade_required', 'quota_exceeded'),
      },
    }),
    async (request, reply) => {
      const hook = await ctx.hooks.subscribe(principalOf(request), request.body);
      return reply
        .code(201)
        .header('location', `${ctx.config.baseUrl}/hooks/${encodeURIComponent(hook.id)}`)
        .send({ ...toHookResource(hook), secret: hook.secret });
    },
  );

  app.get(
    '/hooks',
    operation(SCOPE, {
      operationId: 'listHooks',
      tags: ['Automations'],
      summary: 'List the subscriptions',
      description:
        'An addition to the spec: the subscriptions of every workspace the token reaches (or of `workspaceId`), newest first, paged as the other lists are. Their secrets are never shown again.',
      querystring: HookListQuery,
      response: { 200: answer(HookPageSchema, 'A page of subscriptions, newest first.'), ...problemResponses() },
    }),
    async (request) => {
      const principal = principalOf(request);
      const { workspaceId } = request.query;
      const list = `hooks:${principal.userId}:${principal.workspaceId ?? workspaceId ?? ''}`;
      const page = await ctx.hooks.list(principal, pageRequest(ctx.cursors, list, request.query), workspaceId);
      return toEnvelope(ctx.cursors, list, page, toHookResource);
    },
  );

  app.delete(
    '/hooks/:hookId',
    operation(SCOPE, {
      operationId: 'deleteHook',
      tags: ['Automations'],
      summary: 'Unsubscribe',
      description:
        'An addition to the spec: removes the subscription; events not yet sent to it are not sent. A subscription of a workspace the token does not reach is `404`.',
      params: HookParams,
      response: { 204: noContent('Removed; no body.'), ...problemResponses() },
    }),
    async (request, reply) => {
      await ctx.hooks.unsubscribe(principalOf(request), request.params.hookId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/hooks/samples/:event',
    operation(SCOPE, {
      operationId: 'sampleHook',
      tags: ['Automations'],
      summary: 'What a subscription would receive',
      description:
        'An addition to the spec, for a platform’s editor: the body a subscription to `event` would be posted, from the form’s (or the workspace’s) newest submission of that kind, ' +
        'else made up (`id` "sample"). A list, as the polling trigger’s items are.',
      params: HookSampleParams,
      querystring: HookSampleQuery,
      response: { 200: answer(HookSampleSchema, 'One body, in a list.'), ...problemResponses('upgrade_required') },
    }),
    async (request) => {
      const { event } = request.params;
      const { formId, workspaceId } = request.query;
      return { data: await ctx.hooks.sample(principalOf(request), { event, ...(formId ? { formId } : {}), ...(workspaceId ? { workspaceId } : {}) }) };
    },
  );
}
