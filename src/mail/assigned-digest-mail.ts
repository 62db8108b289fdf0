import { accountMailHtml, escapeHtml } from './account-mail.js';
import { headerText } from './header-text.js';

/** One open submission as the digest names it, as the inbox does; every text is the visitor's, escaped here. */
export interface AssignedDigestItem {
  /** Who sent it (whoOf); null: the submission names nobody. */
  who: string | null;
  formName: string;
  firstLine: string;
  createdAt: number;
  /** `<publicUrl>/submissions/<id>` */
  url: string;
}

export interface AssignedDigestFacts {
  workspaceName: string;
  /** Open submissions assigned to the member, counted up to `capped`. */
  count: number;
  /** The count stopped at the cap: there may be more. */
  capped: boolean;
  /** The oldest open ones, oldest first (all of them when they are few). */
  oldest: AssignedDigestItem[];
  /** The newest open ones, newest first; empty when `oldest` lists them all. */
  newest: AssignedDigestItem[];
  /** The inbox's Mine view of the workspace. */
  mineUrl: string;
  settingsUrl: string;
}

const PARAGRAPH = 'margin:0 0 12px;font-size:15px;line-height:1.5;color:#111827;';
const HEADING = 'margin:20px 0 8px;font-size:15px;line-height:1.5;font-weight:700;color:#111827;';
const ITEM = 'margin:0 0 12px;padding:0 0 12px;border-bottom:1px solid #e5e7eb;';
const SMALL = 'margin:0 0 4px;font-size:13px;line-height:1.5;color:#6b7280;overflow-wrap:anywhere;';
const LINE = 'margin:0 0 4px;font-size:15px;line-height:1.5;color:#111827;overflow-wrap:anywhere;';
const LINK = 'color:#2f55c9;';
const BUTTON = 'display:inline-block;padding:10px 16px;background:#2f55c9;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600;';

const when = (at: number) => `${new Date(at).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

/** The daily digest's subject, text and HTML: how many are open and the member's, the oldest and newest few with links, and the Mine view. */
export function assignedDigestMessage(facts: AssignedDigestFacts): { subject: string; text: string; html: string } {
  const counted = facts.capped ? `${facts.count - 1}+` : String(facts.count);
  const submissions = `${counted} open submission${facts.count === 1 ? '' : 's'}`;
  // NOTE: a workspace name could hold line breaks and other controls; a subject must be one line.
  const subject = headerText(`${submissions} assigned to you in “${facts.workspaceName}”`, 400);
  const intro = `${submissions} ${facts.count === 1 ? 'is' : 'are'} assigned to you in the workspace “${facts.workspaceName}” and not yet done.`;
  const listed = facts.oldest.length + facts.newest.length;
  const more = facts.capped ? 'And more.' : facts.count > listed ? `And ${facts.count - listed} more.` : '';
  const groups =
    facts.newest.length === 0
      ? [{ title: facts.oldest.length === 1 ? '' : 'Oldest first:', items: facts.oldest }]
      : [
          { title: 'Waiting longest:', items: facts.oldest },
          { title: 'Newest:', items: facts.newest },
        ];
  const footer = `You get this daily email because you asked for it in the settings of “${facts.workspaceName}”. Stop it there:`;

  const textItem = (item: AssignedDigestItem) =>
    [`- ${item.who ?? 'Unknown sender'} · ${item.formName} · ${when(item.createdAt)}`, `  “${item.firstLine || '(no text)'}”`, `  ${item.url}`].join('\n');
  const text = `${[
    intro,
    ...groups.map((group) => [group.title, ...group.items.map(textItem)].filter((part) => part !== '').join('\n')),
    more,
    `Open the submissions assigned to you: ${facts.mineUrl}`,
    `${footer} ${facts.settingsUrl}`,
  ]
    .filter((part) => part !== '')
    .join('\n\n')}\n`;

  const htmlItem = (item: AssignedDigestItem) =>
    `<div style="${ITEM}">` +
    `<p style="${SMALL}">${escapeHtml(item.who ?? 'Unknown sender')} · ${escapeHtml(item.formName)} · ${escapeHtml(when(item.createdAt))}</p>` +
    `<p style="${LINE}"><a href="${escapeHtml(item.url)}" style="${LINK}">${item.firstLine ? escapeHtml(item.firstLine) : '(no text)'}</a></p>` +
    '</div>';
  const htmlGroups = groups
    .map((group) => `${group.title ? `<p style="${HEADING}">${escapeHtml(group.title)}</p>` : ''}${group.items.map(htmlItem).join('')}`)
    .join('');
  const html = accountMailHtml(
    subject,
    `<p style="${PARAGRAPH}">${escapeHtml(intro)}</p>${htmlGroups}` +
      (more ? `<p style="${PARAGRAPH}">${escapeHtml(more)}</p>` : '') +
      `<p style="margin:20px 0 8px;"><a href="${escapeHtml(facts.mineUrl)}" style="${BUTTON}">Open the submissions assigned to you</a></p>` +
      `<p style="${SMALL}">Or open this address: ${escapeHtml(facts.mineUrl)}</p>`,
    `${escapeHtml(footer)} <a href="${escapeHtml(facts.settingsUrl)}" style="color:#6b7280;">the workspace’s settings</a>.`,
  );
  return { subject, text, html };
}
