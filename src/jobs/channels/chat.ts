import type { Config } from '../../config/config.js';
import type { Database } from '../../db/database.js';
import { fromJson } from '../../db/database.js';
import { CHAT_KIND_NAMES, CHAT_KINDS, chatChannelOf, isChatKind, type ChatChannel, type ChatKind } from '../../domain/chat-channels.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import { submissionPageUrl } from '../../mail/notification.js';
import type { OutboundGuard } from '../../net/outbound-guard.js';
import { retryAfterOf } from '../../net/retry-after.js';
import { lookupBySubmission, submissionGone, submissionIdOf, type Channel, type DeliveryReceipt, type Job } from './channel.js';
import { chatText, submissionMessage, teamsCard, type ChatMessage } from './chat-messages.js';
import type { DeliveryFiles } from './submission-files.js';

// the webhook channel reads Retry-After the same way (net/retry-after.ts)
export { retryAfterOf };

/** The job kinds of the chat channels: one per service, the same words as ChatChannel's `kind`. */
export const CHAT_JOB_KINDS: readonly string[] = CHAT_KINDS;

export interface ChatPostOptions {
  /** The one gate of owner-chosen addresses: public ones, and those the allow list names. */
  outbound: OutboundGuard;
  /** FORMGATE_TELEGRAM_API_URL: Telegram's Bot API, `https://api.telegram.org` unless a stand-in is configured. */
  telegramApiUrl: string;
  timeoutMs?: number;
}

/**
 * Posts one message to one chat channel and says how it went: resolves when the service took it;
 * throws a DeliveryError, permanent when the service refused it (4xx but 408 and 429: the URL, token
 * or chat must change), transient for 408, 429 (with the wait it asked for), 5xx and network failures.
 * NOTE: the URL and token are secrets: no message thrown here names them, only the service.
 */
export async function postChatMessage(channel: ChatChannel, message: ChatMessage, options: ChatPostOptions): Promise<DeliveryReceipt> {
  const service = CHAT_KIND_NAMES[channel.kind];
  const { url, body, trusted } = request(channel, message, options.telegramApiUrl);
  if (!URL.canParse(url)) throw new DeliveryError(`the ${service} channel’s address is not a URL: change it on the form’s Settings page`, { permanent: true });
  // the Telegram API's address is the operator's, not the owner's: not held to the public-address rule
  const text = JSON.stringify(body);
  const headers = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Formgate-Chat/1' };
  const limits = { timeoutMs: options.timeoutMs, maxResponseBytes: 8 * 1024 };
  const sending = trusted ? options.outbound.postToOperatorEndpoint(url, text, headers, limits) : options.outbound.post(url, text, headers, limits);
  const answer = await sending.catch((err: unknown) => {
    if (err instanceof DeliveryError) throw new DeliveryError(`${service}: ${err.message}`, { permanent: err.permanent, cause: err });
    throw err;
  });
  const said = whatItSaid(answer.body);
  const status = answer.status;
  if (status >= 200 && status < 300 && said.ok !== false) return { statusCode: status };
  if (status >= 300 && status < 400)
    throw new DeliveryError(`${service} answered ${status} (a redirect, not followed): check the channel’s URL`, { permanent: true, statusCode: status });
  const reason = said.text ? `: ${said.text}` : '';
  if (status === 429) {
    const retryAfterMs = retryAfterOf(answer.retryAfter) ?? said.retryAfterMs;
    const wait = retryAfterMs === undefined ? '' : ` (asked to wait ${Math.ceil(retryAfterMs / 1000)} s)`;
    throw new DeliveryError(`${service} is limiting the messages${wait}${reason}`, { permanent: false, statusCode: status, retryAfterMs });
  }
  const transient = status === 408 || status >= 500 || status < 200;
  throw new DeliveryError(`${service} ${transient ? 'could not take' : 'refused'} the message (${status})${reason}`, {
    permanent: !transient,
    statusCode: status,
  });
}

function request(channel: ChatChannel, message: ChatMessage, telegramApiUrl: string): { url: string; body: unknown; trusted: boolean } {
  switch (channel.kind) {
    case 'slack-webhook':
      return { url: channel.url ?? '', body: { text: chatText('slack-webhook', message), unfurl_links: false, unfurl_media: false }, trusted: false };
    case 'discord':
      // no one is pinged by what a visitor typed; links are not expanded into previews (flag 4)
      return { url: channel.url ?? '', body: { content: chatText('discord', message), allowed_mentions: { parse: [] }, flags: 4 }, trusted: false };
    case 'teams':
      return { url: channel.url ?? '', body: teamsCard(message), trusted: false };
    case 'telegram':
      return {
        url: `${telegramApiUrl.replace(/\/+$/, '')}/bot${channel.botToken ?? ''}/sendMessage`,
        body: { chat_id: channel.chatId, text: chatText('telegram', message), parse_mode: 'HTML', link_preview_options: { is_disabled: true } },
        trusted: true,
      };
  }
}

/** The service's own words from its answer (Telegram's description, Discord's message, Slack's text), one short line. */
function whatItSaid(body: string): { ok?: boolean; text: string; retryAfterMs?: number } {
  let text = body;
  let ok: boolean | undefined;
  let retryAfterMs: number | undefined;
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    if (typeof json.ok === 'boolean') ok = json.ok;
    const error = json.error as { message?: unknown } | string | undefined;
    const words = json.description ?? json.message ?? (typeof error === 'object' ? error?.message : error);
    text = typeof words === 'string' ? words : '';
    // Telegram: parameters.retry_after; Discord: retry_after, both in seconds
    const seconds = (json.parameters as { retry_after?: unknown } | undefined)?.retry_after ?? json.retry_after;
    if (typeof seconds === 'number' && seconds >= 0) retryAfterMs = Math.ceil(seconds * 1000);
  } catch {
    // not JSON: the text as sent (Slack answers "invalid_token", "no_service")
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return { ok, text: line.length > 200 ? `${line.slice(0, 200)}…` : line, retryAfterMs };
}

/**
 * Posts a submission to one of its form's chat channels (the job's kind names which). The channel
 * is read from the form when the job is sent: a changed URL applies to waiting jobs, a removed
 * channel fails them for good.
 */
export class ChatChannelDelivery implements Channel {
  constructor(
    private readonly database: Database,
    private readonly options: ChatPostOptions,
    /** The submissions' files: each shown by name with a link signed for 7 days when the message is sent. */
    private readonly files: DeliveryFiles,
    /** FORMGATE_PUBLIC_URL (read when sent): the message links to the submission's page there. */
    private readonly config: Pick<Config, 'publicUrl'>,
  ) {}

  private readonly submissions = lookupBySubmission((submissionIds) =>
    this.database.db
      .selectFrom('submissions')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .select(['submissions.id', 'submissions.data', 'forms.name', 'forms.chatChannels'])
      .where('submissions.id', 'in', submissionIds)
      .execute(),
  );

  async send(job: Job): Promise<DeliveryReceipt> {
    if (!isChatKind(job.kind)) throw new DeliveryError(`no chat service is called "${job.kind}"`, { permanent: true });
    const kind: ChatKind = job.kind;
    const row = await this.submissions.load(submissionIdOf(job));
    if (!row) throw submissionGone();
    const channel = chatChannelOf(row.chatChannels, kind);
    if (!channel) throw new DeliveryError(`the form has no ${CHAT_KIND_NAMES[kind]} channel any more`, { permanent: true });
    const data = fromJson<Record<string, unknown>>(row.data);
    const files = await this.files.of(row.id, data);
    const now = Date.now();
    return postChatMessage(
      channel,
      submissionMessage(row.name, data, files, (file) => this.files.signedUrl(file, now), submissionPageUrl(this.config.publicUrl, row.id)),
      this.options,
    );
  }
}
