import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { answer, noContent } from '../../../schemas/responses.js';
import { TemplateParams, TemplatePreviewBody, TemplatePreviewSchema, TemplatePutBody } from '../../../schemas/template.js';
import { toTemplateResource } from '../../../services/templates.js';
import { principalOf } from '../../auth.js';
import type { FastifyTypeBox } from '../../types.js';
import { emptyBodyAsObject } from '../../json-body.js';
import { OPTIONAL_BODY } from '../../openapi.js';
import { operation } from './operation.js';

const PATH = '/forms/:formId/templates/:kind';
/** Seconds a client is asked to wait when the content checker cannot be reached. */

export function registerTemplateRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.get(
    PATH,
    operation('forms:read', {
      operationId: 'getTemplate',
      tags: ['Templates'],
      summary: 'Get a form’s email template',
      description: '`404 not_found` when the form has no template of this kind (it uses the default layout).',
      params: TemplateParams,
      response: { 200: answer(Type.Ref('Template'), 'The template.'), ...problemResponses('upgrade_required') },
    }),
    async (request) =>
      toTemplateResource(await ctx.templates.getTemplate(principalOf(request).userId, request.params.formId, request.params.kind, { api: true })),
  );

  app.put(
    PATH,
    operation('forms:write', {
      operationId: 'putTemplate',
      tags: ['Templates'],
      summary: 'Write a form’s email template',
      description:
        'Compiled before it is stored: a template that does not compile, or holds more than a template may (262,144 characters, ' +
        '2,000 placeholders, blocks and helper calls, nesting 32 deep, 10,000 names and values inside tags: counted, never timed), ' +
        'is `400 template_invalid` and the stored one is kept. ' +
        'Writing the autoresponder template turns the autoresponder on (upgraded workspaces only); its content is checked and ' +
        'marketing phrasing or bare links pause it (`paused: true`; the write still answers 200). Where SpamAssassin is configured ' +
        'it is asked too, and a spam verdict pauses it as well; when it cannot be reached the write is `503 upstream_unavailable` ' +
        '(with `Retry-After`) and nothing changes. A Template read from the API may be sent back whole: `kind` must be the one in the path, ' +
        '`mode`, `updatedAt` and `paused` are ignored.',
      params: TemplateParams,
      body: TemplatePutBody,
      response: {
        200: answer(Type.Ref('Template'), 'The template as stored; `paused` says whether the content check stopped it.'),
        ...problemResponses('template_invalid', 'upgrade_required', 'upstream_unavailable'),
      },
    }),
    async (request) => {
      const { formId, kind } = request.params;
      const { code, kind: sentKind } = request.body;
      const { template, pausedFor } = await ctx.templates.putTemplate(principalOf(request).userId, formId, kind, code, { api: true }, { kind: sentKind });
      if (pausedFor.length > 0) request.log.info({ formId, kind, reasons: pausedFor }, 'template paused by the content check');
      return toTemplateResource(template);
    },
  );

  app.delete(
    PATH,
    operation('forms:write', {
      operationId: 'deleteTemplate',
      tags: ['Templates'],
      summary: 'Delete a form’s email template',
      description: 'Notifications go back to the default layout; deleting the autoresponder template turns the autoresponder off.',
      params: TemplateParams,
      response: { 204: noContent('Deleted; no body.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      await ctx.templates.deleteTemplate(principalOf(request).userId, request.params.formId, request.params.kind, { api: true });
      return reply.code(204).send(null);
    },
  );

  const preview = operation('forms:read', {
    operationId: 'previewTemplate',
    tags: ['Templates'],
    summary: 'Render a template without sending it',
    description:
      'Renders against `data`, or without it against the fields of the form’s latest submission (a sample when it has none, ' +
      'or when the token lacks `submissions:read`). A notification preview without a template shows the default layout. ' +
      'A render past the limits (100,000 steps: printed values, loop iterations and conditions; 1 MiB) is `400 validation_error` naming `data`.',
    params: TemplateParams,
    body: TemplatePreviewBody,
    // every field of the body is optional, so the body is too (http/openapi.ts reads this mark)
    [OPTIONAL_BODY]: true,
    response: {
      200: answer(TemplatePreviewSchema, 'The rendered email: its HTML and its plain-text alternative.'),
      ...problemResponses('template_invalid', 'upgrade_required'),
    },
  });
  app.post(`${PATH}/preview`, { ...preview, config: { ...preview.config, optionalBody: true }, preValidation: emptyBodyAsObject }, async (request) => {
    const principal = principalOf(request);
    const data = request.body?.data as Record<string, unknown> | undefined;
    return ctx.templates.previewTemplate(principal.userId, request.params.formId, request.params.kind, data, principal.scopes.has('submissions:read'), {
      api: true,
    });
  });
}
