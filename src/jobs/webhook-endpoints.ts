import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { webhookBodyOf } from '../domain/webhook-body.js';
import { accountEmail } from '../mail/account-mail.js';
import { webhookGoneMessage } from '../mail/webhook-gone-notice.js';
import { EMAIL_KIND, type EmailPayload } from './channels/email.js';
import type { WebhookEndpoint, WebhookGone } from './channels/webhook.js';
import { enqueueJobs } from './outbox.js';
import { ownerAddresses } from '../db/workspace-owners.js';

/** The forms' webhooks as they are now (the webhook channel reads them at each try): a form not listed is gone. */
export async function webhookEndpoints(database: Database, formIds: readonly string[]): Promise<WebhookEndpoint[]> {
  if (formIds.length === 0) return [];
  const rows = await database.db
    .selectFrom('forms')
    .select(['id', 'webhookUrl', 'webhookDisabledAt', 'webhookDisabledReason', 'webhookBodyFormat', 'webhookBodyTemplate'])
    .where('id', 'in', [...formIds])
    .execute();
  return rows.map((row) => ({
    formId: row.id,
    url: row.webhookUrl,
    disabledAt: row.webhookDisabledAt === null ? null : Number(row.webhookDisabledAt),
    disabledReason: row.webhookDisabledReason,
    body: webhookBodyOf(row),
  }));
}

/**
 * A receiver answered 410 Gone: the form's webhook is turned off (Standard Webhooks: "disable the
 * endpoint"), and its workspace's owners are emailed, in one transaction. Only while the form still
 * posts to that very address and is on: a URL changed meanwhile, or a second 410 of a webhook already
 * off, changes nothing and sends no second email. Returns whether it turned the webhook off.
 */
export async function turnOffGoneWebhook(database: Database, config: Pick<Config, 'publicUrl'>, gone: WebhookGone): Promise<boolean> {
  return database.transaction(async (trx) => {
    // when is in webhook_disabled_at, which every page shows in the viewer’s time zone
    const reason = `${gone.url} answered 410 Gone`;
    const turnedOff = await trx
      .updateTable('forms')
      .set({ webhookDisabledAt: gone.at, webhookDisabledReason: reason })
      .where('id', '=', gone.formId)
      .where('webhookUrl', '=', gone.url)
      .where('webhookDisabledAt', 'is', null)
      .executeTakeFirst();
    if (turnedOff.numUpdatedRows === 0n) return false;
    const form = await trx
      .selectFrom('forms')
      .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
      .select(['forms.id', 'forms.name', 'workspaces.id as workspaceId', 'workspaces.name as workspaceName', 'workspaces.ownerId'])
      .where('forms.id', '=', gone.formId)
      .executeTakeFirstOrThrow();
    const message = webhookGoneMessage({
      formName: form.name,
      formId: form.id,
      workspaceName: form.workspaceName,
      url: gone.url,
      settingsUrl: `${config.publicUrl.replace(/\/+$/, '')}/forms/${form.id}/settings#field-webhookUrl`,
    });
    const owners = await ownerAddresses(trx, { id: form.workspaceId, ownerId: form.ownerId });
    await enqueueJobs(
      trx,
      owners.map(({ email }) => ({ kind: EMAIL_KIND, payload: accountEmail(email, message) satisfies EmailPayload })),
    );
    return true;
  });
}
