/** The chat services a form can post its submissions to besides Slack's bot token (forms.slack_channel). */
export const CHAT_KINDS = ['slack-webhook', 'discord', 'teams', 'telegram'] as const;
export type ChatKind = (typeof CHAT_KINDS)[number];

/**
 * One of a form's chat channels, as stored in `forms.chat_channels` (a JSON array, at most one of
 * each kind). `url` for the three webhook kinds; `botToken` and `chatId` for Telegram. The URL and
 * the token are secrets: whoever holds them can post to the channel.
 */
export interface ChatChannel {
  kind: ChatKind;
  url?: string;
  chatId?: string;
  botToken?: string;
}

/** What people call each service, in messages and on the page. */
export const CHAT_KIND_NAMES: Record<ChatKind, string> = {
  'slack-webhook': 'Slack webhook',
  discord: 'Discord',
  teams: 'Microsoft Teams',
  telegram: 'Telegram',
};

export function isChatKind(value: unknown): value is ChatKind {
  return typeof value === 'string' && (CHAT_KINDS as readonly string[]).includes(value);
}

/** The stored column as channels; anything malformed in it is left out rather than failing a page or a delivery. */
export function chatChannelsOf(stored: unknown): ChatChannel[] {
  if (stored == null) return [];
  let parsed: unknown;
  try {
    // text on SQLite, already parsed (jsonb) on PostgreSQL
    parsed = typeof stored === 'string' ? JSON.parse(stored) : stored;
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((item): item is ChatChannel => typeof item === 'object' && item !== null && isChatKind((item as ChatChannel).kind));
}

/** The channel of one kind, or undefined. */
export function chatChannelOf(stored: unknown, kind: ChatKind): ChatChannel | undefined {
  return chatChannelsOf(stored).find((channel) => channel.kind === kind);
}

const TELEGRAM_TOKEN = /^\d+:[A-Za-z0-9_-]{30,}$/;
const TELEGRAM_CHAT = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

/** What a refused vendor address adds: a self-hosted server taking the same format is allowed by listing its host. */
export const COMPATIBLE_SERVER_HINT =
  'for a compatible server of your own (Mattermost, Rocket.Chat), list its host on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW';

/**
 * The problems of a channel as the owner typed it, by field (`url`, `botToken`, `chatId`); none: it
 * may be stored. `listedHost` says whether the operator listed the URL's host (the admin page,
 * FORMGATE_WEBHOOK_ALLOW): such a host takes the place of the service's own, over http or https,
 * at any path, so that a Slack-compatible server (Mattermost, Rocket.Chat) can be used. It is true
 * of every host with FORMGATE_ALLOW_PRIVATE_WEBHOOKS (tests' stand-ins on loopback).
 */
export function chatChannelProblems(channel: ChatChannel, listedHost: (url: URL) => boolean): Record<string, string> {
  const problems: Record<string, string> = {};
  if (channel.kind === 'telegram') {
    if (!channel.botToken) problems.botToken = 'Enter the bot token that @BotFather gave you.';
    else if (!TELEGRAM_TOKEN.test(channel.botToken))
      problems.botToken = 'This is not a bot token: it looks like 123456789:AAE… (digits, a colon, then at least 30 letters, digits, - or _).';
    if (!channel.chatId) problems.chatId = 'Enter the chat id (a number such as -1001234567890) or the channel’s @name.';
    else if (!TELEGRAM_CHAT.test(channel.chatId)) problems.chatId = 'A chat id is a number (a group’s starts with -) or a public channel’s @name.';
    return problems;
  }
  const problem = channel.url ? urlProblem(channel.kind, channel.url, listedHost) : 'Enter the webhook URL.';
  if (problem) problems.url = problem;
  return problems;
}

function urlProblem(kind: Exclude<ChatKind, 'telegram'>, value: string, listedHost: (url: URL) => boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter the whole URL, starting with https://.';
  }
  if (url.username || url.password) return 'The URL must not carry a user name or password.';
  if (listedHost(url)) return url.protocol === 'http:' || url.protocol === 'https:' ? null : 'The URL must start with https:// or http://.';
  if (url.protocol !== 'https:') return kind === 'teams' ? 'The URL must start with https://.' : `The URL must start with https://; ${COMPATIBLE_SERVER_HINT}.`;
  const host = url.hostname.toLowerCase();
  if (kind === 'slack-webhook' && !(host === 'hooks.slack.com' && url.pathname.startsWith('/services/')))
    return `A Slack incoming webhook URL starts with https://hooks.slack.com/services/; ${COMPATIBLE_SERVER_HINT}.`;
  if (
    kind === 'discord' &&
    !(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com'].includes(host) && url.pathname.startsWith('/api/webhooks/'))
  )
    return `A Discord webhook URL starts with https://discord.com/api/webhooks/; ${COMPATIBLE_SERVER_HINT}.`;
  if (kind === 'teams' && !url.hostname.includes('.'))
    return 'Enter the workflow’s URL as Teams shows it (https://…logic.azure.com/… or …powerplatform.com/…).';
  return null;
}

/** The channels with one kind replaced by `channel` (or removed when null), in the order of CHAT_KINDS. */
export function withChatChannel(stored: unknown, kind: ChatKind, channel: ChatChannel | null): ChatChannel[] {
  const others = chatChannelsOf(stored).filter((existing) => existing.kind !== kind);
  const all = channel ? [...others, channel] : others;
  return all.sort((a, b) => CHAT_KINDS.indexOf(a.kind) - CHAT_KINDS.indexOf(b.kind));
}

/**
 * What the page shows of a channel: never the secret itself. A URL as its host and the last 4
 * characters of its secret part; a bot token as its last 4 characters; the chat id in full (not a secret).
 */
export function maskedChatChannel(channel: ChatChannel): { kind: ChatKind; shown: string; chatId?: string } {
  if (channel.kind === 'telegram') return { kind: channel.kind, shown: `bot token …${(channel.botToken ?? '').slice(-4)}`, chatId: channel.chatId };
  let host = '';
  try {
    host = new URL(channel.url ?? '').host;
  } catch {
    host = '';
  }
  return { kind: channel.kind, shown: `${host} …${(channel.url ?? '').slice(-4)}` };
}
