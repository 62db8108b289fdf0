import { accountMailHtml, escapeHtml } from './account-mail.js';
import { headerText } from './header-text.js';

/** One quarantined submission as the digest lists it; every text is the visitor's, escaped here. */
export interface DigestItem {
  /** "Name <address>", the address or the name; null: the submission names nobody. */
  sender: string | null;
  formName: string;
  firstLine: string;
  reasons: string[];
  createdAt: number;
  /** The signed "Not spam" link of this item for this member. */
  notSpamUrl: string;
}

export interface DigestFacts {
  workspaceName: string;
  /** The newest spam first, at most the digest's bound. */
  items: DigestItem[];
  /** Spam of this digest not listed past the bound. */
  more: number;
  /** Where the spam not listed is: the form's spam folder when all of it came to one form, else the workspace's page. */
  spamFolderUrl: string;
  settingsUrl: string;
  frequency: 'daily' | 'weekly';
  /** How long the links work, in days. */
  linkDays: number;
}

const PARAGRAPH = 'margin:0 0 12px;font-size:15px;line-height:1.5;color:#111827;';
const ITEM = 'margin:0 0 16px;padding:0 0 16px;border-bottom:1px solid #e5e7eb;';
const SMALL = 'margin:0 0 4px;font-size:13px;line-height:1.5;color:#6b7280;overflow-wrap:anywhere;';
const LINE = 'margin:0 0 6px;font-size:15px;line-height:1.5;color:#111827;overflow-wrap:anywhere;';
const BUTTON = 'display:inline-block;padding:6px 12px;background:#2f55c9;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600;font-size:14px;';

/** The digest's subject, text and HTML: each caught submission with who sent it, what it says, why it was caught, and "Not spam". */
export function spamDigestMessage(facts: DigestFacts): { subject: string; text: string; html: string } {
  const total = facts.items.length + facts.more;
  const caught = `${total} submission${total === 1 ? '' : 's'}`;
  // NOTE: a workspace name could hold line breaks and other controls; a subject must be one line.
  const subject = headerText(`Spam digest: ${caught} caught in “${facts.workspaceName}”`, 400);
  const intro = `The spam filter caught ${caught} in the workspace “${facts.workspaceName}” since the last digest. They were not delivered. If one is real, “Not spam” moves it to the inbox and sends its deliveries.`;
  const linkNote = `Each “Not spam” link asks you to confirm on a page of Formgate (no login needed) and works for ${facts.linkDays} days.`;
  const moreNote = facts.more > 0 ? `And ${facts.more} more in the spam folder: ${facts.spamFolderUrl}` : '';
  const footer = `You get this ${facts.frequency} digest as a member of “${facts.workspaceName}”. Change how often, or stop it for yourself: ${facts.settingsUrl}`;

  const textItems = facts.items.map((item) =>
    [
      `- ${item.sender ?? 'Unknown sender'} · ${item.formName} · ${new Date(item.createdAt).toISOString().replace('T', ' ').slice(0, 16)} UTC`,
      `  “${item.firstLine || '(no text)'}”`,
      `  Caught because: ${item.reasons.length > 0 ? item.reasons.join('; ') : 'no reason was kept'}`,
      `  Not spam: ${item.notSpamUrl}`,
    ].join('\n'),
  );
  const text = `${[intro, ...textItems, moreNote, linkNote, footer].filter((part) => part !== '').join('\n\n')}\n`;

  const htmlItems = facts.items
    .map(
      (item) =>
        `<div style="${ITEM}">` +
        `<p style="${SMALL}">${escapeHtml(item.sender ?? 'Unknown sender')} · ${escapeHtml(item.formName)} · ${escapeHtml(new Date(item.createdAt).toISOString().replace('T', ' ').slice(0, 16))} UTC</p>` +
        `<p style="${LINE}">${item.firstLine ? escapeHtml(item.firstLine) : '<em>(no text)</em>'}</p>` +
        `<p style="${SMALL}">Caught because: ${escapeHtml(item.reasons.length > 0 ? item.reasons.join('; ') : 'no reason was kept')}</p>` +
        `<p style="margin:8px 0 0;"><a href="${escapeHtml(item.notSpamUrl)}" style="${BUTTON}">Not spam</a></p>` +
        '</div>',
    )
    .join('');
  const moreHtml =
    facts.more > 0
      ? `<p style="${PARAGRAPH}">And ${facts.more} more in <a href="${escapeHtml(facts.spamFolderUrl)}" style="color:#2f55c9;">the spam folder</a>.</p>`
      : '';
  const html = accountMailHtml(
    subject,
    `<p style="${PARAGRAPH}">${escapeHtml(intro)}</p>${htmlItems}${moreHtml}<p style="${SMALL}">${escapeHtml(linkNote)}</p>`,
    `You get this ${facts.frequency} digest as a member of “${escapeHtml(facts.workspaceName)}”. <a href="${escapeHtml(facts.settingsUrl)}" style="color:#6b7280;">Change how often, or stop it for yourself</a>.`,
  );
  return { subject, text, html };
}
