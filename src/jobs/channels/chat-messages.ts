import { CHAT_KIND_NAMES, type ChatKind } from '../../domain/chat-channels.js';
import { deliveredFileOf, readableSize, type DeliveredFile } from '../../domain/file-values.js';
import { fieldRows, OPEN_LABEL } from '../../mail/notification.js';
import { escapeSlack, slackLink } from './slack.js';

/** A message before it is written in a service's markup: a title, then one row per field. */
export interface ChatMessage {
  /** "New submission to" or "Test message from Formgate for", followed by the form's name. */
  heading: string;
  formName: string;
  rows: ChatRow[];
  /** Said after the rows, in italics (how long file links work). */
  footer?: string;
  /** The last line: a link to the submission's page in the dashboard ("Open in Formgate"). */
  link?: { text: string; url: string };
}

export type ChatRow = { name: string; text: string } | { name: string; file: { name: string; size: number; url: string } };

/**
 * A submission as a message: its fields by name, each file by name with a signed link, and last a
 * link to `submissionUrl`, the submission's page in the dashboard (none when absent).
 */
export function submissionMessage(
  formName: string,
  data: Record<string, unknown>,
  files: readonly DeliveredFile[],
  link: (file: DeliveredFile) => string,
  submissionUrl?: string,
): ChatMessage {
  const rows = files.length === 0 ? fieldRows(data) : fieldRows(data, (value) => deliveredFileOf(value, files));
  return {
    heading: 'New submission to',
    formName,
    rows: rows.map(([name, value]) =>
      typeof value === 'string' ? { name, text: value } : { name, file: { name: value.name, size: value.size, url: link(value) } },
    ),
    footer: files.length === 0 ? undefined : 'Links to files work for 7 days.',
    link: submissionUrl ? { text: OPEN_LABEL, url: submissionUrl } : undefined,
  };
}

/** The message "Send a test message" posts: what a submission's looks like, marked as a test. */
export function testMessage(formName: string): ChatMessage {
  return {
    heading: 'Test message from Formgate for',
    formName,
    rows: [{ name: 'test', text: 'Submissions to this form will be posted here.' }],
  };
}

/** How one service writes a message: its markup, its escaping, and the most characters it takes. */
interface Markup {
  limit: number;
  heading(heading: string, formName: string): string;
  text(name: string, value: string): string;
  file(name: string, file: { name: string; size: number; url: string }): string;
  note(text: string): string;
  link(text: string, url: string): string;
}

// Discord reads a backslash before any punctuation as "this character as is".
const escapeDiscord = (text: string) => text.replace(/[\\*_~`|[\]()<>#@-]/g, '\\$&');
// Adaptive Cards' markdown: emphasis and links only (a line here never starts with a value).
const escapeTeams = (text: string) => text.replace(/[\\*_~`[\]]/g, '\\$&');
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
// NOTE: a `)` ends a markdown link's address (and an unmatched `(` keeps it open); signed links have none, but a base URL might.
const linkTarget = (url: string) => url.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const MARKUPS: Record<ChatKind, Markup> = {
  // Slack's text field takes 40,000 characters; a little is kept back.
  'slack-webhook': {
    limit: 39_000,
    heading: (heading, formName) => `${heading} *${escapeSlack(formName)}*`,
    text: (name, value) => `*${escapeSlack(name)}:* ${escapeSlack(value)}`,
    file: (name, file) => `*${escapeSlack(name)}:* ${slackLink(file.url, file.name)} (${readableSize(file.size)})`,
    note: (text) => `_${escapeSlack(text)}_`,
    link: (text, url) => slackLink(url, text),
  },
  discord: {
    limit: 2_000,
    heading: (heading, formName) => `${heading} **${escapeDiscord(formName)}**`,
    text: (name, value) => `**${escapeDiscord(name)}:** ${escapeDiscord(value)}`,
    file: (name, file) => `**${escapeDiscord(name)}:** [${escapeDiscord(file.name)}](${linkTarget(file.url)}) (${readableSize(file.size)})`,
    note: (text) => `*${escapeDiscord(text)}*`,
    link: (text, url) => `[${escapeDiscord(text)}](${linkTarget(url)})`,
  },
  // Teams shows cards of up to about 28 KB; the text is kept well below.
  teams: {
    limit: 20_000,
    heading: (heading, formName) => `${heading} **${escapeTeams(formName)}**`,
    text: (name, value) => `**${escapeTeams(name)}:** ${escapeTeams(value)}`,
    file: (name, file) => `**${escapeTeams(name)}:** [${escapeTeams(file.name)}](${linkTarget(file.url)}) (${readableSize(file.size)})`,
    note: (text) => `_${escapeTeams(text)}_`,
    link: (text, url) => `[${escapeTeams(text)}](${linkTarget(url)})`,
  },
  // Telegram's sendMessage takes 4096 characters of text (counted after the HTML is read: this is less).
  telegram: {
    limit: 4_096,
    heading: (heading, formName) => `${escapeHtml(heading)} <b>${escapeHtml(formName)}</b>`,
    text: (name, value) => `<b>${escapeHtml(name)}:</b> ${escapeHtml(value)}`,
    file: (name, file) => `<b>${escapeHtml(name)}:</b> <a href="${escapeHtml(file.url)}">${escapeHtml(file.name)}</a> (${readableSize(file.size)})`,
    note: (text) => `<i>${escapeHtml(text)}</i>`,
    link: (text, url) => `<a href="${escapeHtml(url)}">${escapeHtml(text)}</a>`,
  },
};

/**
 * The message as lines in the service's markup, within its size: past the limit, the field that
 * does not fit is cut (its text, never its markup) and a line says so; the footer and the link to
 * the submission's page are always kept.
 */
export function chatLines(kind: ChatKind, message: ChatMessage): string[] {
  const markup = MARKUPS[kind];
  const heading = markup.heading(message.heading, message.formName);
  const rows = message.rows.map((row) => ('text' in row ? markup.text(row.name, row.text) : markup.file(row.name, row.file)));
  const footer = [...(message.footer ? [markup.note(message.footer)] : []), ...(message.link ? [markup.link(message.link.text, message.link.url)] : [])];
  const whole = [heading, ...rows, ...footer];
  if (whole.join('\n').length <= markup.limit) return whole;

  // too long: whole rows while they leave room for the note (and the footer), then what fits of the next
  const cutNote = markup.note(`Cut here: the message was too long for ${CHAT_KIND_NAMES[kind]}. The whole submission is on the dashboard.`);
  const tail = [cutNote, ...footer];
  const room = markup.limit - tail.join('\n').length - 1;
  const lines = [heading];
  let used = heading.length;
  const fits = (line: string) => used + 1 + line.length <= room;
  for (const [i, line] of rows.entries()) {
    if (fits(line)) {
      lines.push(line);
      used += 1 + line.length;
      continue;
    }
    const row = message.rows[i]!;
    if ('text' in row) {
      const cut = longestFitting(row.text.length, (n) => fits(markup.text(row.name, `${row.text.slice(0, n)}…`)));
      if (cut > 0) lines.push(markup.text(row.name, `${row.text.slice(0, cut)}…`));
    }
    break;
  }
  return [...lines, ...tail];
}

/** The message as the one string a service takes (every service but Teams). */
export function chatText(kind: ChatKind, message: ChatMessage): string {
  return chatLines(kind, message).join('\n');
}

/** The largest n in 0..max for which `fits(n)` holds (fits is monotonic), by halving. */
function longestFitting(max: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * What a Teams workflow ("When a Teams webhook request is received") takes: a message whose one
 * attachment is an Adaptive Card, here a text block per line.
 */
export function teamsCard(message: ChatMessage): unknown {
  const [heading = '', ...rest] = chatLines('teams', message);
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: heading, wrap: true, size: 'Medium', weight: 'Bolder' },
            ...rest.map((line) => ({ type: 'TextBlock', text: line, wrap: true, spacing: 'Small' })),
          ],
        },
      },
    ],
  };
}
