import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { SECRET_PROVIDERS, type StoredSecretProvider } from '../../services/form-secrets.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash, successFlash } from '../flash.js';
import { formFrame } from '../form-frame.js';
import { editList, readSettings, type SettingsValues, settingsPatch, valuesOf, withAdded } from '../form-settings-input.js';
import { type SettingsSection, sectionOf, settingsWords, withSection } from '../form-settings-sections.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { zoneOf } from '../time-zone.js';
import { RotateWebhookSecretPage } from '../views/form-confirm-pages.js';
import { formPath } from '../views/form-layout.js';
import { secretName } from '../views/form-secrets-settings.js';
import { FormSettingsPage } from '../views/form-settings-page.js';
import type { ChatPanelState } from '../views/chat-channels-panel.js';
import type { DestinationAddState } from '../views/destinations-panel.js';
import { type WebhookBodyState, webhookBodyProps } from './webhook-body.js';

type FormParams = { Params: { formId: string } };
type SecretParams = { Params: { formId: string; provider: string } };
type Body = Record<string, unknown> | undefined;

export interface PageState {
  values?: SettingsValues;
  errors?: FieldErrors;
  secretErrors?: FieldErrors;
  webhookSecret?: string;
  /** The section whose list was edited, not saved yet. */
  unsaved?: SettingsSection;
  /** The section just saved (`?saved=<section>`). */
  saved?: SettingsSection;
  /** The section whose save was refused. */
  refused?: SettingsSection;
  chatState?: ChatPanelState;
  /** A refused add of a destination (routes/form-destinations.ts). */
  destinationState?: DestinationAddState;
  /** A refused save of the webhook body (routes/webhook-body.ts). */
  webhookBody?: WebhookBodyState;
}

/** The provider named in the address, or `not_found` (the 404 page) for anything else, the webhook's included. */
function storedProvider(provider: string): StoredSecretProvider {
  if (!SECRET_PROVIDERS.includes(provider as StoredSecretProvider)) throw new ProblemError('not_found', `There is no ${provider} secret.`);
  return provider as StoredSecretProvider;
}

/** The form's Settings page, with what a refused change brings back (other routes on the page answer with it too). */
export async function sendSettingsPage(
  ctx: AppContext,
  request: FastifyRequest<FormParams>,
  reply: FastifyReply,
  state: PageState = {},
  status = 200,
): Promise<FastifyReply> {
  const { frame, form } = await formFrame(request, reply, ctx, request.params.formId);
  const secrets = await ctx.forms.listSecrets(accountOf(request).user.id, form.id);
  const recipients = await ctx.recipients.statuses(form.workspaceId, valuesOf(form).notificationEmails);
  const chatChannels = await ctx.chatChannels.listForMember(accountOf(request).user.id, form.id);
  const destinations = await ctx.destinations.listForMember(accountOf(request).user.id, form.id);
  const { webhookBody, ...rest } = state;
  const page = FormSettingsPage({
    frame,
    form,
    secrets,
    recipients,
    confirmsRecipients: ctx.recipients.enabled,
    chatChannels,
    destinations,
    vouched: await ctx.workspaces.vouchedFor(form.workspaceId),
    spamdAvailable: ctx.config.spamd !== null,
    ...rest,
    webhookBody: await webhookBodyProps(ctx, accountOf(request).user.id, form, frame.csrf, webhookBody),
    values: state.values ?? valuesOf(form, zoneOf(request)),
  });
  return sendPage(reply, page, status);
}

/**
 * A form's settings: every field of the API's Form resource (checked by the API's own schema and
 * rules), the write-only secrets, the webhook signing secret (reveal, rotate). Any member may do all
 * of it, on every plan: the API lets any member's token change a form too.
 */
export function registerFormSettingsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const settingsPage = (request: FastifyRequest<FormParams>, reply: FastifyReply, state: PageState = {}, status = 200) =>
    sendSettingsPage(ctx, request, reply, state, status);

  app.get<FormParams & { Querystring: { saved?: unknown } }>('/forms/:formId/settings', { preHandler: requireAccount }, (request, reply) =>
    settingsPage(request, reply, { saved: sectionOf(request.query?.saved) ?? undefined }),
  );

  // A section's own save (`section` names it: only its fields are read and changed), or, without
  // `section`, every field posted at once as before the sections (scripts and old pages keep working).
  app.post<FormParams & { Body: Body }>('/forms/:formId/settings', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    // membership first: an outsider gets the 404 page whatever was sent
    const form = await ctx.forms.formForMember(user.id, request.params.formId);
    const zone = zoneOf(request);
    const posted = readSettings(request.body, zone);
    const section = sectionOf(request.body?.section);
    const values = section ? withSection(valuesOf(form, zone), posted.values, section) : posted.values;
    const { action } = posted;
    if (action.kind !== 'save') {
      const unsaved = action.list === 'notificationEmails' ? 'notifications' : 'spam-protection';
      return settingsPage(request, reply, { values: editList(values, action), unsaved });
    }
    const saving = withAdded(values);
    try {
      await ctx.forms.updateForm(user.id, request.params.formId, settingsPatch(saving, section));
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      return settingsPage(request, reply, { values: saving, errors: fieldErrors(error, settingsWords), refused: section ?? undefined }, 400);
    }
    if (!section) {
      setFlash(reply, 'Settings saved');
      return seeOther(reply, formPath(request.params.formId, 'settings'));
    }
    return seeOther(reply, `${formPath(request.params.formId, 'settings')}?saved=${section}#${section}`);
  });

  // Pause or resume at once (the button sits in the settings form; nothing else it posts is saved)
  app.post<FormParams & { Body: Body }>('/forms/:formId/settings/pause', { preHandler: requireAccount }, async (request, reply) => {
    const paused = request.body?.paused;
    if (paused !== '1' && paused !== '0')
      throw new ProblemError('validation_error', 'paused: must be 1 (pause) or 0 (resume)', { errors: ['paused: must be 1 or 0'] });
    await ctx.forms.setPaused(accountOf(request).user.id, request.params.formId, paused === '1');
    setFlash(reply, paused === '1' ? 'Form paused: it takes no submissions until you resume it' : 'Form resumed: it takes submissions again');
    return seeOther(reply, `${formPath(request.params.formId, 'settings')}#form-state`);
  });

  app.post<SecretParams & { Body: Body }>('/forms/:formId/settings/secrets/:provider', { preHandler: requireAccount }, async (request, reply) => {
    const provider = storedProvider(request.params.provider);
    const secret = typeof request.body?.secret === 'string' ? request.body.secret : '';
    try {
      await ctx.forms.putSecret(accountOf(request).user.id, request.params.formId, provider, secret);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      const message = Object.values(fieldErrors(error, settingsWords))[0];
      return settingsPage(request, reply, { secretErrors: { [`secret-${provider}`]: message ?? 'The secret was rejected.' } }, 400);
    }
    setFlash(reply, `${secretName(provider)} saved`);
    return seeOther(reply, `${formPath(request.params.formId, 'settings')}#secret-keys`);
  });

  app.post<SecretParams>('/forms/:formId/settings/secrets/:provider/remove', { preHandler: requireAccount }, async (request, reply) => {
    const provider = storedProvider(request.params.provider);
    try {
      await ctx.forms.removeSecret(accountOf(request).user.id, request.params.formId, provider);
    } catch (error) {
      if (!(error instanceof ProblemError) || error.code !== 'conflict') throw error;
      return settingsPage(request, reply, { secretErrors: { [`secret-${provider}`]: error.detail } }, 409);
    }
    setFlash(reply, `${secretName(provider)} removed`);
    return seeOther(reply, `${formPath(request.params.formId, 'settings')}#secret-keys`);
  });

  // NOTE: the secret is answered in this response (200, no-store), never through a GET or a redirect:
  // an address or a redirect would leave it in the history, a log or a Referer.
  // compress: false, as every page that shows a secret (dashboard/plugin.ts, BREACH)
  app.post<FormParams>('/forms/:formId/settings/webhook-secret', { preHandler: requireAccount, compress: false }, async (request, reply) => {
    const webhookSecret = await ctx.forms.showWebhookSecret(accountOf(request).user.id, request.params.formId);
    return settingsPage(request, reply, { webhookSecret });
  });

  app.get<FormParams>('/forms/:formId/settings/webhook-secret/rotate', { preHandler: requireAccount }, async (request, reply) => {
    const { frame, form } = await formFrame(request, reply, ctx, request.params.formId);
    return sendPage(reply, RotateWebhookSecretPage({ frame, form }));
  });

  app.post<FormParams>('/forms/:formId/settings/webhook-secret/rotate', { preHandler: requireAccount, compress: false }, async (request, reply) => {
    const webhookSecret = await ctx.forms.rotateWebhookSecret(accountOf(request).user.id, request.params.formId);
    const { frame, form } = await formFrame(request, reply, ctx, request.params.formId);
    const secrets = await ctx.forms.listSecrets(accountOf(request).user.id, form.id);
    const page = FormSettingsPage({
      frame: { ...frame, flash: successFlash('Webhook signing secret rotated: give the new one to your receiver') },
      form,
      secrets,
      recipients: await ctx.recipients.statuses(form.workspaceId, valuesOf(form).notificationEmails),
      confirmsRecipients: ctx.recipients.enabled,
      chatChannels: await ctx.chatChannels.listForMember(accountOf(request).user.id, form.id),
      vouched: await ctx.workspaces.vouchedFor(form.workspaceId),
      spamdAvailable: ctx.config.spamd !== null,
      values: valuesOf(form, zoneOf(request)),
      webhookSecret,
      webhookBody: await webhookBodyProps(ctx, accountOf(request).user.id, form, frame.csrf),
    });
    return sendPage(reply, page);
  });
}
