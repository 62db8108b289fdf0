import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { problemResponses } from '../../../schemas/common.js';
import { answer, created, noContent } from '../../../schemas/responses.js';
import { FormCreateBody, FormListQuery, FormPageSchema, FormParams, FormPatchBody } from '../../../schemas/form.js';
import { toFormResource } from '../../../services/forms.js';
import { principalOf } from '../../auth.js';
import { pageRequest, toEnvelope } from '../../../web/pagination.js';
import type { FastifyTypeBox } from '../../types.js';
import { operation } from './operation.js';

export function registerFormRoutes(app: FastifyTypeBox, ctx: AppContext): void {
  app.get(
    '/forms',
    operation('forms:read', {
      operationId: 'listForms',
      tags: ['Forms'],
      summary: 'List the forms of a workspace',
      description: 'Newest first.',
      querystring: FormListQuery,
      response: { 200: answer(FormPageSchema, 'A page of the workspace’s forms, newest first.'), ...problemResponses('upgrade_required') },
    }),
    async (request) => {
      const { workspaceId } = request.query;
      const list = `forms:${workspaceId}`;
      const page = await ctx.forms.listForms(principalOf(request).userId, workspaceId, pageRequest(ctx.cursors, list, request.query), { api: true });
      return toEnvelope(ctx.cursors, list, page, toFormResource);
    },
  );

  app.post(
    '/forms',
    operation('forms:write', {
      operationId: 'createForm',
      tags: ['Forms'],
      summary: 'Create a form',
      description: 'Settings supplied are applied at creation. A workspace holds at most 10 forms on FREE and 100 upgraded (`quota_exceeded`).',
      body: FormCreateBody,
      response: {
        201: created(Type.Ref('Form'), 'The new form, with the settings supplied.', '/forms/{formId}'),
        ...problemResponses('upgrade_required', 'quota_exceeded'),
      },
    }),
    async (request, reply) => {
      const { workspaceId, ...settings } = request.body;
      const form = await ctx.forms.createForm(principalOf(request).userId, workspaceId, settings, { api: true });
      return reply
        .code(201)
        .header('location', `${ctx.config.baseUrl}/forms/${encodeURIComponent(form.id)}`)
        .send(toFormResource(form));
    },
  );

  app.get(
    '/forms/:formId',
    operation('forms:read', {
      operationId: 'getForm',
      tags: ['Forms'],
      summary: 'Get a form',
      description: 'All its settings; a form of another account is `404 not_found`.',
      params: FormParams,
      response: { 200: answer(Type.Ref('Form'), 'The form.'), ...problemResponses('upgrade_required') },
    }),
    async (request) => toFormResource(await ctx.forms.getForm(principalOf(request).userId, request.params.formId, { api: true })),
  );

  app.patch(
    '/forms/:formId',
    operation('forms:write', {
      operationId: 'updateForm',
      tags: ['Forms'],
      summary: 'Change a form’s settings',
      description:
        'Applies only the fields present; null clears a nullable field (never `name`); `notificationEmails` and `allowedOrigins` replace the whole list (`[]` empties it). ' +
        'A Form read from the API may be sent back whole: `id` and `workspaceId` must be the form’s own (a form cannot move to another workspace), ' +
        '`createdAt` and `updatedAt` are ignored.',
      params: FormParams,
      body: FormPatchBody,
      response: { 200: answer(Type.Ref('Form'), 'The form with its new settings.'), ...problemResponses('upgrade_required') },
    }),
    async (request) => {
      // a Form sent back as read: its id and workspace are checked by the service, its times are dropped
      const { id, workspaceId, createdAt: _createdAt, updatedAt: _updatedAt, ...settings } = request.body;
      const form = await ctx.forms.updateForm(principalOf(request).userId, request.params.formId, settings, { api: true }, { id, workspaceId });
      return toFormResource(form);
    },
  );

  app.delete(
    '/forms/:formId',
    operation('forms:write', {
      operationId: 'deleteForm',
      tags: ['Forms'],
      summary: 'Delete a form and its submissions',
      description: 'Deletes the form and every submission of it (inbox, held and spam), with their files and the deliveries not yet sent. Cannot be undone.',
      params: FormParams,
      response: { 204: noContent('Deleted, with its submissions; no body.'), ...problemResponses('upgrade_required') },
    }),
    async (request, reply) => {
      await ctx.forms.deleteForm(principalOf(request).userId, request.params.formId, { api: true });
      return reply.code(204).send(null);
    },
  );
}
