import { fromJson, type Queryable } from '../db/database.js';
import { chatChannelsOf } from '../domain/chat-channels.js';
import { type Plan, PlanRules } from '../domain/plans.js';
import { AUTORESPONDER_KIND } from './channels/autoresponder.js';
import { normaliseEmail } from '../domain/email-address.js';
import { NOTIFICATION_KIND, type NotificationPayload } from './channels/notification.js';
import { SLACK_KIND } from './channels/slack.js';
import { WEBHOOK_KIND, type WebhookPayload } from './channels/webhook.js';
import { enqueueJobs, type JobToEnqueue } from './outbox.js';
import type { HookTarget } from '../domain/hooks.js';
import { hookJobs } from './hook-jobs.js';
import { destinationJobs, type DestinationTarget } from './destination-jobs.js';

/** What of a form decides which deliveries its submissions get. */
export interface DeliverySettings {
  notificationEmails: unknown;
  slackChannel: string | null;
  webhookUrl: string | null;
  plan: Plan;
  /** The autoresponder template's `paused` (0/1), or null when the form has none. */
  autoresponderPaused: number | null;
  /** `forms.chat_channels`: JSON array of the Slack webhook, Discord, Teams and Telegram channels, or null. */
  chatChannels: unknown;
  /** The automation platforms' subscriptions to the form's new and spam submissions (services/hooks.ts); absent: none. */
  hooks?: readonly HookTarget[];
  /** The form's destinations (Airtable, Notion, Google Sheets, newsletters; jobs/destination-jobs.ts); absent: none. */
  destinations?: readonly DestinationTarget[];
}

const HOSTING_RULES = PlanRules.fixed('hosting');

/** The deliveries an accepted submission gets, one job each; the autoresponder only with someone to answer. */
export function deliveryKinds(form: DeliverySettings, hasSubmitter: boolean, plans: PlanRules = HOSTING_RULES): string[] {
  const kinds: string[] = [];
  if (hasSubmitter && plans.isUpgraded(form.plan) && form.autoresponderPaused === 0) kinds.push(AUTORESPONDER_KIND);
  if (fromJson<string[]>(form.notificationEmails).length > 0) kinds.push(NOTIFICATION_KIND);
  if (form.slackChannel) kinds.push(SLACK_KIND);
  if (form.webhookUrl) kinds.push(WEBHOOK_KIND);
  // one job per chat channel, its kind the channel's: the job reads the channel's address when sent
  for (const channel of chatChannelsOf(form.chatChannels)) kinds.push(channel.kind);
  return kinds;
}

/** A submission's deliveries: the job kinds, the notification recipients, and the webhook's address when there is one. */
export interface DeliveryPlan {
  kinds: string[];
  notificationEmails: string[];
  webhookUrl: string | null;
  /** The subscriptions of the form's events: an accepted submission gets one job per `submission.created` hook, a spam one per `submission.spam` hook. */
  hooks?: readonly HookTarget[];
  /** The form's destinations: one job each per accepted submission. */
  destinations?: readonly DestinationTarget[];
}

export function deliveryPlan(form: DeliverySettings, hasSubmitter: boolean, plans: PlanRules = HOSTING_RULES): DeliveryPlan {
  return {
    kinds: deliveryKinds(form, hasSubmitter, plans),
    notificationEmails: fromJson<string[]>(form.notificationEmails),
    webhookUrl: form.webhookUrl,
    ...(form.hooks && form.hooks.length > 0 ? { hooks: form.hooks } : {}),
    ...(form.destinations && form.destinations.length > 0 ? { destinations: form.destinations } : {}),
  };
}

/**
 * Enqueues a submission's deliveries in the transaction that accepts it (after its row is written).
 * Most jobs name the submission and read it when sent; the webhook job carries its body as it will
 * be posted (the outbox message: what was accepted is what is sent).
 */
export async function enqueueDeliveries(trx: Queryable, submission: AcceptedSubmission, plan: DeliveryPlan): Promise<void> {
  await enqueueJobs(trx, deliveryJobs(submission, plan));
}

/**
 * The jobs enqueueDeliveries writes, for a caller that writes many submissions' jobs at once. The
 * notification is one job per recipient: each gets a message of their own (no one sees who else is
 * told), and a recipient whose server refuses is retried alone, without the others getting it twice.
 */
export function deliveryJobs(submission: AcceptedSubmission, plan: DeliveryPlan): JobToEnqueue[] {
  const hooks = hookJobs(plan.hooks, 'submission.created', { ...submission, at: Number(submission.createdAt) });
  return plan.kinds
    .flatMap((kind): JobToEnqueue[] => {
      if (kind === NOTIFICATION_KIND) {
        return distinctAddresses(plan.notificationEmails).map((to) => ({
          kind,
          payload: { formId: submission.formId, to } satisfies NotificationPayload,
          submissionId: submission.id,
          idempotencyKey: `${submission.id}:${to.toLowerCase()}`,
        }));
      }
      const payload =
        kind === WEBHOOK_KIND
          ? ({ url: plan.webhookUrl!, formId: submission.formId, fields: fromJson<Record<string, unknown>>(submission.data) } satisfies WebhookPayload)
          : { formId: submission.formId };
      return [{ kind, payload, submissionId: submission.id }];
    })
    .concat(hooks, destinationJobs(plan.destinations, submission));
}

/** An accepted submission as its deliveries need it. */
export interface AcceptedSubmission {
  id: string;
  formId: string;
  data: unknown;
  /** Epoch ms (a number, or PostgreSQL's bigint as text): the hooks' `createdAt`. */
  createdAt: number | string;
}

/** Each address once, the first spelling kept: one person listed twice gets one message. */
function distinctAddresses(addresses: string[]): string[] {
  // NOTE: by key in a Set, not by comparing each with all before it: the owner's list may hold 100.
  const seen = new Set<string>();
  return addresses.filter((address) => {
    const key = normaliseEmail(address);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
