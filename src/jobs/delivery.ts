import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { ProblemError } from '../errors.js';
import { observedMailer } from '../mail/mail-health.js';
import { messageIdDomain } from '../mail/message-id.js';
import { createMailer, type Mailer } from '../mail/transport.js';
import { AUTORESPONDER_KIND, AutoresponderChannel } from './channels/autoresponder.js';
import type { Channel } from './channels/channel.js';
import { CHAT_JOB_KINDS, ChatChannelDelivery } from './channels/chat.js';
import { DeliveryError } from '../domain/delivery-error.js';
import { EMAIL_KIND, EmailChannel } from './channels/email.js';
import { NOTIFICATION_KIND, NotificationChannel } from './channels/notification.js';
import { SLACK_KIND, SlackChannel } from './channels/slack.js';
import { DeliveryFiles } from './channels/submission-files.js';
import { WEBHOOK_KIND, WebhookChannel } from './channels/webhook.js';
import { JobWorker, type WorkerOptions } from './worker.js';
import type { DeliveriesState, DeliverySwitch } from './delivery-switch.js';
import { turnOffGoneWebhook, webhookEndpoints } from './webhook-endpoints.js';
import { WEBHOOK_RETRY_POLICY } from './retry-policy.js';
import { HookChannel } from './channels/hook.js';
import { HOOK_KIND } from './hook-jobs.js';
import { DestinationDelivery } from './channels/destinations.js';
import { DESTINATION_JOB_KINDS } from './destination-jobs.js';

export interface Delivery {
  worker: JobWorker;
  mailer: Mailer;
  /** Stops claiming, lets jobs in flight finish (up to `deadlineMs`), then closes the mailer. */
  stop(deadlineMs?: number): Promise<void>;
}

/** A deleted form has no secret: its webhook jobs fail for good instead of retrying. */
async function signingSecret(ctx: Pick<AppContext, 'forms'>, formId: string): Promise<string> {
  try {
    return await ctx.forms.webhookSecret(formId);
  } catch (err) {
    if (err instanceof ProblemError) throw new DeliveryError(`the form is gone: ${err.detail}`, { permanent: true });
    throw err;
  }
}

/** Says at start when deliveries are paused, and at each pause and resume any instance makes. */
function logDeliverySwitch(deliverySwitch: DeliverySwitch, log: Pick<Logger, 'info' | 'warn'>): void {
  const tell = (state: DeliveriesState, atStart: boolean) => {
    const fields = { deliveries: state.paused ? 'paused' : 'on', source: state.source, pausedAt: state.pause?.at, pausedBy: state.pause?.by };
    if (!state.paused) return log.info(fields, 'deliveries resumed: waiting emails, webhooks and Slack messages are sent now');
    const why = state.source === 'environment' ? 'FORMGATE_DELIVERIES=paused' : `paused by ${state.pause?.by ?? 'unknown'} at ${state.pause?.at ?? 'unknown'}`;
    const resume = state.source === 'environment' ? 'unset FORMGATE_DELIVERIES and restart' : 'run `formgate deliveries resume`';
    log.warn(
      fields,
      `deliveries are paused (${why})${atStart ? '' : ' by a change in the database'}: submissions are taken and their emails, webhooks and Slack messages wait; ${resume} to send them`,
    );
  };
  deliverySwitch.onChange((state) => tell(state, false));
  void deliverySwitch.read().then((state) => state.paused && tell(state, true));
}

/** Builds the channels and starts this instance's worker; `formgate serve` calls it once. */
export function startDelivery(
  ctx: Pick<
    AppContext,
    | 'config'
    | 'database'
    | 'forms'
    | 'visitors'
    | 'mailHealth'
    | 'metrics'
    | 'recipients'
    | 'deliverySwitch'
    | 'fileLinks'
    | 'plans'
    | 'instance'
    | 'outbound'
    | 'audit'
  >,
  logger: Logger,
  options: WorkerOptions = {},
): Delivery {
  const mailer = observedMailer(createMailer(ctx.config), ctx.mailHealth);
  const log = logger.child({ component: 'delivery' });
  const files = new DeliveryFiles(ctx.database, ctx.fileLinks);
  const idDomain = messageIdDomain(ctx.config.publicUrl);
  const channels: Record<string, Channel> = {
    [EMAIL_KIND]: new EmailChannel(mailer, idDomain),
    [NOTIFICATION_KIND]: new NotificationChannel(ctx.database, mailer, idDomain, ctx.config.confirmRecipients, ctx.recipients, {
      store: files,
      config: ctx.config,
    }),
    [SLACK_KIND]: new SlackChannel(ctx.database, ctx.config.slackApiUrl, files, ctx.config),
    [AUTORESPONDER_KIND]: new AutoresponderChannel(ctx.database, mailer, idDomain, ctx.plans, ctx.config.signup === 'open'),
    [WEBHOOK_KIND]: new WebhookChannel({
      outbound: ctx.outbound,
      signingSecret: (formId) => signingSecret(ctx, formId),
      files,
      // each try goes to the form's webhook as it is then; a 410 Gone turns it off and tells the owners
      endpoints: (formIds) => webhookEndpoints(ctx.database, formIds),
      gone: async (gone) => {
        if (await turnOffGoneWebhook(ctx.database, ctx.config, gone)) {
          log.warn({ formId: gone.formId, url: gone.url }, 'a webhook receiver answered 410 Gone: the form’s webhook is turned off and its owners emailed');
        }
      },
    }),
  };
  // the automation platforms' subscriptions (services/hooks.ts)
  channels[HOOK_KIND] = new HookChannel(ctx.database, ctx.outbound, files, async (hook, reason, why) => {
    ctx.metrics?.hookRemoved(reason);
    log.warn({ hookId: hook.id, targetUrl: hook.targetUrl, reason }, `an automation platform’s subscription was removed: ${why}`);
    // by Formgate itself: the audit log names its host only, as for a removal by hand (services/hooks.ts)
    const target = { kind: 'hook', id: hook.id, name: URL.canParse(hook.targetUrl) ? new URL(hook.targetUrl).host : null };
    await ctx.audit.record({ action: 'hook.removed', workspaceId: hook.workspaceId, target, details: { reason, why } });
  });
  // one channel object for every chat service (Slack webhook, Discord, Teams, Telegram): the job's kind says which
  const chat = new ChatChannelDelivery(ctx.database, { outbound: ctx.outbound, telegramApiUrl: ctx.config.telegramApiUrl }, files, ctx.config);
  for (const kind of CHAT_JOB_KINDS) channels[kind] = chat;
  // the form's destinations (Airtable, Notion, Google Sheets, newsletters): the job's kind says which service
  const destinations = new DestinationDelivery(ctx.database, { outbound: ctx.outbound, apis: ctx.config.destinationApis }, files);
  for (const kind of DESTINATION_JOB_KINDS) channels[kind] = destinations;
  const worker = new JobWorker(ctx.database, channels, {
    // webhooks: Standard Webhooks' schedule, over about three days
    retryByKind: {
      [WEBHOOK_KIND]: WEBHOOK_RETRY_POLICY,
      [HOOK_KIND]: WEBHOOK_RETRY_POLICY,
      ...Object.fromEntries(DESTINATION_JOB_KINDS.map((kind) => [kind, WEBHOOK_RETRY_POLICY])),
    },
    logger: log,
    foreground: ctx.visitors,
    leaseMs: ctx.config.deliveryLeaseMs,
    observer: ctx.metrics ?? undefined,
    paused: () => ctx.deliverySwitch.paused(),
    ...options,
  });
  logDeliverySwitch(ctx.deliverySwitch, log);
  // resumed: what waited goes at once rather than at the next poll
  ctx.deliverySwitch.onChange((state) => state.paused || worker.wake());
  worker.start();
  return {
    worker,
    mailer,
    async stop(deadlineMs) {
      await worker.stop(deadlineMs);
      mailer.close();
    },
  };
}
