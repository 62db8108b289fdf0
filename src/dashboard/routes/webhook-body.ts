import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { isWebhookBodyFormat, WEBHOOK_BODY_TEMPLATE_MAX, type WebhookBodyFormat } from '../../domain/webhook-body.js';
import { ProblemError } from '../../errors.js';
import type { BodyPreview } from '../../services/webhook-bodies.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { settingsWords } from '../form-settings-sections.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { locateTemplateError } from '../template-errors.js';
import { formPath } from '../views/form-layout.js';
import type { WebhookBodyPanelProps } from '../views/webhook-body-panel.js';
import { WebhookBodyPreviewDocument } from '../views/webhook-body-panel.js';
import { sendSettingsPage } from './form-settings.js';

type FormParams = { Params: { formId: string } };
type BodyPost = FormParams & { Body: Record<string, unknown> | undefined };

// A template is at most 16,384 characters; a form post spells JSON's punctuation as %XX (three bytes), UTF-8 up to four a character.
const BODY_LIMIT = WEBHOOK_BODY_TEMPLATE_MAX * 12 + 4096;
// The preview is shown in a frame of the dashboard only and runs nothing (as the email template's preview)
const PREVIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'; sandbox";

/** What the panel shows again after a refused save: the format and template as posted, and the problems. */
export interface WebhookBodyState {
  format: string;
  template: string;
  errors: FieldErrors;
}

function posted(body: BodyPost['Body']): { format: unknown; template: string } {
  const format = Array.isArray(body?.webhookBodyFormat) ? body.webhookBodyFormat[0] : body?.webhookBodyFormat;
  const template = typeof body?.webhookBodyTemplate === 'string' ? body.webhookBodyTemplate.replace(/\r\n?/g, '\n') : '';
  return { format: format ?? 'json', template };
}

/** A refused save's problems beside their fields, in plain words; a template's at its line when the engine says. */
export function webhookBodyErrors(error: unknown): FieldErrors {
  if (!(error instanceof ProblemError) || error.code !== 'validation_error' || !Array.isArray(error.extra.errors)) return fieldErrors(error, settingsWords);
  const byField: Record<string, string[]> = {};
  for (const line of error.extra.errors as string[]) {
    const match = /^(webhookBodyFormat|webhookBodyTemplate): (.*)$/s.exec(line);
    const [field, message] = match ? [match[1]!, match[2]!] : ['form', line];
    const located = field === 'webhookBodyTemplate' ? locateTemplateError(message) : null;
    const words = located && located.line !== null ? `The webhook body template, line ${located.line}: ${located.message}` : settingsWords(field, message);
    byField[field] = [...(byField[field] ?? []), words];
  }
  return Object.fromEntries(Object.entries(byField).map(([field, messages]) => [field, messages.join(' ')]));
}

/** The panel's props for the Settings page: the stored setting, or what a refused save posted. */
export async function webhookBodyProps(
  ctx: AppContext,
  userId: string,
  form: { id: string; webhookUrl: string | null },
  csrf: string,
  state?: WebhookBodyState,
): Promise<WebhookBodyPanelProps> {
  const [stored, example] = await Promise.all([ctx.webhookBodies.getForMember(userId, form.id), ctx.webhookBodies.exampleForMember(userId, form.id)]);
  const format: WebhookBodyFormat = state && isWebhookBodyFormat(state.format) ? state.format : stored.format;
  return {
    formId: form.id,
    csrf,
    format,
    template: state ? state.template : (stored.storedTemplate ?? ''),
    errors: state?.errors,
    hasWebhook: form.webhookUrl !== null,
    example: example.from,
  };
}

/**
 * A form's webhook body on its Settings page: save the format and template (checked against the
 * form's example data), and the preview frame's document (the stored setting, or a draft posted to
 * it). Every route checks membership first.
 */
export function registerWebhookBodyRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post<BodyPost>('/forms/:formId/settings/webhook-body', { preHandler: requireAccount, bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const { user } = accountOf(request);
    const { formId } = request.params;
    await ctx.forms.formForMember(user.id, formId);
    const { format, template } = posted(request.body);
    try {
      await ctx.webhookBodies.putForMember(user.id, formId, format, template);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      const state = { format: String(format), template, errors: webhookBodyErrors(error) };
      if (error instanceof ProblemError && error.code === 'upstream_unavailable') reply.header('retry-after', '30');
      return sendSettingsPage(ctx, request, reply, { webhookBody: state }, error instanceof ProblemError ? error.status : 400);
    }
    setFlash(
      reply,
      format === 'json' ? 'Webhook body saved: each webhook carries the fields as JSON' : 'Webhook body saved: each webhook is made with your template',
    );
    return seeOther(reply, `${formPath(formId, 'settings')}#webhook-body`);
  });

  async function preview(request: FastifyRequest<FormParams>, reply: FastifyReply, draft: { format: unknown; template: string } | null) {
    const { user } = accountOf(request);
    const { formId } = request.params;
    const setting = draft ?? (await ctx.webhookBodies.getForMember(user.id, formId));
    let result: BodyPreview;
    try {
      result = await ctx.webhookBodies.previewForMember(user.id, formId, setting.format, setting.template ?? '');
    } catch (error) {
      if (!(error instanceof ProblemError) || error.code !== 'validation_error') throw error;
      const example = await ctx.webhookBodies.exampleForMember(user.id, formId);
      result = { ok: false, errors: (error.extra.errors as string[] | undefined) ?? [error.detail], example, format: 'json-template' };
    }
    const problems = result.ok ? [] : result.errors.map((line) => locateTemplateError(line.replace(/^webhookBody(Template|Format): /, '')));
    reply.header('content-security-policy', PREVIEW_CSP).header('x-frame-options', 'SAMEORIGIN');
    return sendPage(reply, WebhookBodyPreviewDocument({ preview: result, problems }), result.ok ? 200 : 400);
  }

  app.get<FormParams>('/forms/:formId/settings/webhook-body/preview', { preHandler: requireAccount }, (request, reply) => preview(request, reply, null));

  app.post<BodyPost>('/forms/:formId/settings/webhook-body/preview', { preHandler: requireAccount, bodyLimit: BODY_LIMIT }, (request, reply) =>
    preview(request, reply, posted(request.body)),
  );
}
