import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.js';
import { toJson } from '../db/database.js';
import {
  CHAT_KIND_NAMES,
  chatChannelOf,
  chatChannelProblems,
  chatChannelsOf,
  maskedChatChannel,
  withChatChannel,
  type ChatChannel,
  type ChatKind,
} from '../domain/chat-channels.js';
import { DeliveryError, deliveryErrorForMembers } from '../domain/delivery-error.js';
import type { InstanceUsage } from '../domain/plans.js';
import { validationError } from '../errors.js';
import { isPublicAddress } from '../net/public-address.js';
import { postChatMessage, type ChatPostOptions } from '../jobs/channels/chat.js';
import { testMessage } from '../jobs/channels/chat-messages.js';
import { WebhookChannel } from '../jobs/channels/webhook.js';
import { exampleData, storedWebhookBody } from './webhook-bodies.js';
import { type FormService, formTarget } from './forms.js';
import type { AuditLog } from './audit-log.js';

/** A channel as the page shows it: the service, and of its secret only the host and last 4 characters. */
export interface ChatChannelView {
  kind: ChatKind;
  service: string;
  shown: string;
  chatId?: string;
}

/** What the owner typed for a channel; a blank secret keeps the one stored. */
export interface ChatChannelInput {
  url?: string;
  botToken?: string;
  chatId?: string;
}

/** How a test went: the service took it, or what it answered. */
export type TestOutcome = { sent: true; statusCode?: number } | { sent: false; error: string; untried?: boolean };

/**
 * A form's chat channels (`forms.chat_channels`), for its members: listed without their secrets,
 * added, changed, removed, and tried with a real message. Each submission gets one delivery per
 * channel (jobs/submission-jobs.ts); this is where the owner manages them.
 */
export class ChatChannelService {
  constructor(
    private readonly database: Database,
    private readonly forms: FormService,
    private readonly options: ChatPostOptions,
    private readonly audit: AuditLog,
    /** Team or hosting (InstanceSettings): what members read of a failed test (domain/delivery-error.ts). */
    private readonly usage: () => InstanceUsage = () => 'hosting',
  ) {}

  private async stored(formId: string): Promise<unknown> {
    const row = await this.database.db.selectFrom('forms').select('chatChannels').where('id', '=', formId).executeTakeFirst();
    return row?.chatChannels ?? null;
  }

  /** The form's channels as a member sees them (`not_found` for anyone else). */
  async listForMember(userId: string, formId: string): Promise<ChatChannelView[]> {
    await this.forms.formForMember(userId, formId);
    return chatChannelsOf(await this.stored(formId)).map((channel) => ({ ...maskedChatChannel(channel), service: CHAT_KIND_NAMES[channel.kind] }));
  }

  /**
   * Adds the form's channel of `kind`, or changes it: a blank URL or token keeps the stored one, so
   * the owner need not paste a secret again to change a chat id. A bad value is a `validation_error`
   * naming the field (`url`, `botToken`, `chatId`), and nothing changes.
   */
  async putForMember(userId: string, formId: string, kind: ChatKind, input: ChatChannelInput): Promise<void> {
    const form = await this.forms.formForMember(userId, formId);
    await this.database.transaction(async (trx) => {
      // NOTE: locked on PostgreSQL (SQLite runs one write transaction at a time): two edits at once both count.
      const select = trx.selectFrom('forms').select('chatChannels').where('id', '=', formId);
      const row = await (this.database.dialect === 'postgres' ? select.forUpdate() : select).executeTakeFirst();
      const existing = chatChannelOf(row?.chatChannels ?? null, kind);
      const channel = channelOf(kind, input, existing);
      const outbound = this.options.outbound;
      // a host the allow list names may stand in for the service's own (Mattermost, Rocket.Chat taking Slack's format)
      const problems = chatChannelProblems(channel, (url) => outbound.listsHostOf(url));
      // as for a webhook: no literal loopback, private or localhost address unless listed (host names are checked again when called)
      const addressProblem = channel.url && !problems.url ? outbound.urlProblem(channel.url) : null;
      if (addressProblem) problems.url = `The URL ${addressProblem}.`;
      if (Object.keys(problems).length > 0)
        throw validationError(
          Object.entries(problems).map(([field, message]) => `${field}: ${message}`),
          `The ${CHAT_KIND_NAMES[kind]} channel was not saved.`,
        );
      const channels = withChatChannel(row?.chatChannels ?? null, kind, channel);
      await trx
        .updateTable('forms')
        .set({ chatChannels: toJson(channels), updatedAt: Date.now() })
        .where('id', '=', formId)
        .execute();
      await this.audit.record({ action: 'form.chat_channel_saved', workspaceId: form.workspaceId, target: formTarget(form), details: { kind } }, trx);
    });
  }

  /** Removes the form's channel of `kind`; false when it had none. Deliveries still waiting for it then fail for good. */
  async removeForMember(userId: string, formId: string, kind: ChatKind): Promise<boolean> {
    const form = await this.forms.formForMember(userId, formId);
    return this.database.transaction(async (trx) => {
      const select = trx.selectFrom('forms').select('chatChannels').where('id', '=', formId);
      const row = await (this.database.dialect === 'postgres' ? select.forUpdate() : select).executeTakeFirst();
      if (!chatChannelOf(row?.chatChannels ?? null, kind)) return false;
      const channels = withChatChannel(row?.chatChannels ?? null, kind, null);
      await trx
        .updateTable('forms')
        .set({ chatChannels: channels.length === 0 ? null : toJson(channels), updatedAt: Date.now() })
        .where('id', '=', formId)
        .execute();
      await this.audit.record({ action: 'form.chat_channel_removed', workspaceId: form.workspaceId, target: formTarget(form), details: { kind } }, trx);
      return true;
    });
  }

  /**
   * Posts a test message to the form's channel of `kind` now, through the code that delivers
   * submissions, and says how it went; `not_found` when the form has no such channel.
   */
  async sendTest(userId: string, formId: string, kind: ChatKind): Promise<TestOutcome> {
    const form = await this.forms.formForMember(userId, formId);
    const channel = chatChannelOf(await this.stored(formId), kind);
    if (!channel) return { sent: false, error: `the form has no ${CHAT_KIND_NAMES[kind]} channel`, untried: true };
    return outcomeOf(postChatMessage(channel, testMessage(form.name), this.options), this.usage());
  }

  /**
   * Posts a test to the form's webhook now, signed with its secret like every delivery, its body
   * marked `"test": true` (or, with a body template, the template filled in with the form's example
   * data, as its preview shows); the receiver's answer is the outcome. None: the form has no webhook URL.
   */
  async sendTestWebhook(userId: string, formId: string, now = new Date()): Promise<TestOutcome> {
    const form = await this.forms.formForMember(userId, formId);
    if (!form.webhookUrl) return { sent: false, error: 'the form has no webhook URL', untried: true };
    // a body template is rendered as for a submission, with the example data its preview shows (docs/webhooks.md, Body templates)
    const body = await storedWebhookBody(this.database, formId);
    // NOTE: through the same gate and allow list as the deliveries (issue 39, item 4: it had none, and refused what they sent)
    const webhook = new WebhookChannel({ outbound: this.options.outbound, signingSecret: () => this.forms.webhookSecretForMember(userId, formId), body });
    const id = `test_${randomUUID()}`;
    const fields =
      body.format === 'json'
        ? {
            test: true,
            message: `This is a test webhook from Formgate for the form “${form.name}”, sent from the dashboard at ${now.toISOString()}. It is not a submission.`,
          }
        : (await exampleData(this.database, formId)).data;
    return outcomeOf(
      webhook
        .send({ id, kind: 'webhook', payload: { url: form.webhookUrl, formId, fields }, attempt: 1, submissionId: null, idempotencyKey: id })
        .then(() => ({ statusCode: undefined })),
      this.usage(),
    );
  }
}

function channelOf(kind: ChatKind, input: ChatChannelInput, existing: ChatChannel | undefined): ChatChannel {
  const typed = (value: string | undefined) => (value ?? '').trim();
  if (kind === 'telegram') {
    return { kind, botToken: typed(input.botToken) || existing?.botToken || '', chatId: typed(input.chatId) };
  }
  return { kind, url: typed(input.url) || existing?.url || '' };
}

async function outcomeOf(sending: Promise<{ statusCode?: number | null }>, usage: InstanceUsage): Promise<TestOutcome> {
  try {
    const receipt = await sending;
    return { sent: true, statusCode: receipt.statusCode ?? undefined };
  } catch (err) {
    if (err instanceof DeliveryError) return { sent: false, error: deliveryErrorForMembers(err.message, usage, isPublicAddress)! };
    throw err;
  }
}
