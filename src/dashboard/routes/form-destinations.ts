import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../../context.js';
import { DESTINATION_NAMES, type DestinationInput, type DestinationKind, type DestinationSettings, isDestinationKind } from '../../domain/destinations.js';
import { ProblemError } from '../../errors.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { formFrame } from '../form-frame.js';
import { type FieldNouns, plainMessage } from '../plain-errors.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { TestEmailLimit } from '../test-email-limit.js';
import { DestinationPage, type DestinationPageProps } from '../views/destination-page.js';
import { destinationPath } from '../views/destinations-panel.js';
import { formPath } from '../views/form-layout.js';
import { sendSettingsPage } from './form-settings.js';

type ServiceParams = { Params: { formId: string; service: string } };
type DestinationParams = { Params: { formId: string; destinationId: string } };
type Body = Record<string, unknown> | undefined;

/** The destinations' fields as their labels name them, for their messages. */
const NOUNS: FieldNouns = {
  baseId: 'The base id',
  table: 'The table',
  databaseId: 'The database',
  spreadsheetId: 'The spreadsheet',
  sheet: 'The tab',
  listId: 'The list',
  consentField: 'The consent field',
  url: 'The address',
  username: 'The API user',
  secret: 'The token or key',
  kind: 'The service',
};

/** A destination's message as a plain sentence about its field. */
export function destinationWords(field: string, message: string): string {
  return plainMessage(field.replace(/\[\d+\]$/, ''), message, NOUNS);
}

const TEXT_FIELDS = ['baseId', 'table', 'databaseId', 'spreadsheetId', 'sheet', 'listId', 'consentField', 'url', 'username'] as const;

function text(body: Body, name: string): string | undefined {
  const value = body?.[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** What the form posted: the settings as typed and the secret (never sent back). */
function inputOf(body: Body): { input: DestinationInput; typed: Partial<Record<keyof DestinationSettings, string>> } {
  const typed: Partial<Record<keyof DestinationSettings, string>> = {};
  for (const name of TEXT_FIELDS) {
    const value = text(body, name);
    if (value !== undefined) typed[name] = value.slice(0, 2000);
  }
  return { input: { ...typed, secret: text(body, 'secret') }, typed };
}

/** A list posted as repeated fields (`field`, `to`): one value is a string, several an array. */
function list(body: Body, name: string): string[] {
  const value = body?.[name];
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : ''));
  return typeof value === 'string' ? [value] : [];
}

function kindOf(kind: string): DestinationKind {
  if (!isDestinationKind(kind)) throw new ProblemError('not_found', `There is no ${kind} destination.`);
  return kind;
}

/**
 * A form's destinations (docs/destinations.md): added from the Settings page's Destinations panel,
 * each with a page of its own (its settings, its field mapping), a test answered at once, and
 * Remove. Every route checks membership first: an outsider gets the 404 page and changes nothing.
 */
export function registerFormDestinationRoutes(app: FastifyInstance, ctx: AppContext, redis: Redis | null): void {
  // 10 tests an hour per account, as the chat channels' (counted apart from theirs)
  const testLimit = new TestEmailLimit(redis, 'rl-destination-test');

  async function destinationPage(
    request: FastifyRequest<DestinationParams>,
    reply: FastifyReply,
    state: Pick<DestinationPageProps, 'errors' | 'values' | 'mappingErrors' | 'mapping'> = {},
    status = 200,
  ): Promise<FastifyReply> {
    const { user } = accountOf(request);
    const { formId, destinationId } = request.params;
    const destination = await ctx.destinations.getForMember(user.id, formId, destinationId);
    const { frame, form } = await formFrame(request, reply, ctx, formId);
    const known = await ctx.destinations.knownFields(user.id, formId);
    const fields = [...new Set([...known, ...(destination.settings.mapping ?? []).map((entry) => entry.field)])];
    return sendPage(reply, DestinationPage({ frame, form, destination, fields, ...state }), status);
  }

  app.post<ServiceParams & { Body: Body }>('/forms/:formId/settings/destinations/:service', { preHandler: requireAccount }, async (request, reply) => {
    const kind = kindOf(request.params.service);
    const { user } = accountOf(request);
    const { formId } = request.params;
    await ctx.forms.formForMember(user.id, formId);
    const { input, typed } = inputOf(request.body);
    let id: string;
    try {
      id = await ctx.destinations.addForMember(user.id, formId, kind, input);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      const errors = fieldErrors(error, destinationWords);
      // the service's refusal (a sixth destination) is about the whole form
      if (errors.kind) errors.form = errors.kind;
      return sendSettingsPage(ctx, request, reply, { destinationState: { kind, errors, values: typed } }, 400);
    }
    setFlash(reply, `${DESTINATION_NAMES[kind]} destination added: each accepted submission is sent there. Check its field mapping below.`);
    return seeOther(reply, `${destinationPath(formId, id)}#destination-settings`);
  });

  app.get<DestinationParams>('/forms/:formId/destinations/:destinationId', { preHandler: requireAccount }, (request, reply) => destinationPage(request, reply));

  app.post<DestinationParams & { Body: Body }>('/forms/:formId/destinations/:destinationId', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { formId, destinationId } = request.params;
    const destination = await ctx.destinations.getForMember(user.id, formId, destinationId);
    const { input, typed } = inputOf(request.body);
    try {
      await ctx.destinations.updateForMember(user.id, formId, destinationId, input);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      return destinationPage(request, reply, { errors: fieldErrors(error, destinationWords), values: typed }, 400);
    }
    setFlash(reply, `${destination.service} settings saved`);
    return seeOther(reply, `${destinationPath(formId, destinationId)}#destination-settings`);
  });

  app.post<DestinationParams & { Body: Body }>('/forms/:formId/destinations/:destinationId/mapping', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { formId, destinationId } = request.params;
    await ctx.destinations.getForMember(user.id, formId, destinationId);
    const fields = list(request.body, 'field').slice(0, 500);
    const to = list(request.body, 'to').slice(0, 500);
    if (fields.length !== to.length)
      throw new ProblemError('validation_error', 'Each form field needs its name: post them in pairs.', { errors: ['to: one per field'] });
    try {
      await ctx.destinations.setMappingForMember(
        user.id,
        formId,
        destinationId,
        fields.map((field, i) => ({ field, to: to[i] ?? '' })),
      );
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      return destinationPage(request, reply, { mappingErrors: fieldErrors(error), mapping: to }, 400);
    }
    setFlash(reply, 'Field mapping saved: the next submissions are sent with it');
    return seeOther(reply, `${destinationPath(formId, destinationId)}#destination-mapping`);
  });

  app.post<DestinationParams>('/forms/:formId/destinations/:destinationId/test', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { formId, destinationId } = request.params;
    const destination = await ctx.destinations.getForMember(user.id, formId, destinationId);
    const refusal = await testLimit.take(user.id);
    if (refusal) {
      const minutes = Math.max(1, Math.ceil(refusal.retryAfterSeconds / 60));
      setFlash(reply, `No test sent: you have sent 10 tests in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    } else {
      const outcome = await ctx.destinations.sendTest(user.id, formId, destinationId);
      if (!outcome.sent && outcome.untried) await testLimit.giveBack(user.id);
      const what = `Test to ${destination.service}`;
      setFlash(
        reply,
        outcome.sent
          ? `${what} sent${outcome.statusCode ? ` (HTTP ${outcome.statusCode})` : ''}${outcome.response ? `: ${outcome.response}` : ''}; check that it arrived`
          : `${what} not sent: ${outcome.error}`,
      );
    }
    return seeOther(reply, `${destinationPath(formId, destinationId)}#destination-settings`);
  });

  app.post<DestinationParams>('/forms/:formId/destinations/:destinationId/remove', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { formId, destinationId } = request.params;
    const destination = await ctx.destinations.getForMember(user.id, formId, destinationId);
    await ctx.destinations.removeForMember(user.id, formId, destinationId);
    setFlash(reply, `${destination.service} destination removed: nothing more is sent there`);
    return seeOther(reply, `${formPath(formId, 'settings')}#destinations`);
  });
}
