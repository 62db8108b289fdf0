import { accountMailHtml } from './account-mail.js';
import { headerText } from './header-text.js';

/** What the notice tells: the workspace, its plan's allowance, and where to upgrade. */
export interface NoticeFacts {
  name: string;
  id: string;
  plan: string;
  allowance: number;
  /** Submissions held past the allowance at most (domain/plans.ts). */
  held: number;
  url: string;
}

/** The notice's subject, text and HTML. */
export function quotaNoticeMessage(facts: NoticeFacts): { subject: string; text: string; html: string } {
  const allowance = facts.allowance.toLocaleString('en-US');
  // NOTE: a workspace name could hold line breaks and other controls; a subject must be one line.
  const subject = headerText(`Workspace "${facts.name}" reached its allowance of ${allowance} submissions`, 400);
  const paragraphs = [
    `Your workspace "${facts.name}" has reached its allowance of ${allowance} accepted submissions on the ${facts.plan} plan.`,
    'New submissions are still being kept: they are stored as held, not lost. Held submissions are not listed or delivered yet.',
    `Up to ${facts.held.toLocaleString('en-US')} more are kept as held; past them, new submissions are refused (the visitor is told so, nothing is stored) until you upgrade.`,
    'When the allowance grows (an upgrade), held submissions are released in the order they arrived, then listed and delivered.',
  ];
  const footer = `Workspace ${facts.id} · ${facts.url}`;
  const text = `${['Hello,', ...paragraphs, footer, 'You receive this email once each time the allowance runs out.'].join('\n\n')}\n`;
  const html = accountMailHtml(
    subject,
    ['Hello,', ...paragraphs].map((p) => `<p style="margin:0 0 12px;font-size:15px;line-height:1.5;color:#111827;">${escapeHtml(p)}</p>`).join('') +
      `<p style="margin:0;font-size:13px;color:#6b7280;">Workspace ${escapeHtml(facts.id)} · <a href="${escapeHtml(facts.url)}" style="color:#2f55c9;">${escapeHtml(facts.url)}</a></p>`,
    'You receive this email once each time the allowance runs out.',
  );
  return { subject, text, html };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
