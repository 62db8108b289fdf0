import type { Config } from '../config/config.js';
import type { Queryable } from '../db/database.js';
import { EMAIL_KIND, type EmailPayload } from '../jobs/channels/email.js';
import { enqueueJobs } from '../jobs/outbox.js';
import { planLimits } from '../services/plans.js';
import { headerText } from './header-text.js';

/**
 * Enqueues the email telling a workspace's owners that its allowance ran out, in the transaction
 * that held the first submission past it: one job per owner, so no owner sees the others' addresses
 * and one refusing server does not send the rest theirs twice. Returns the job ids (none with no owner to tell).
 */
export async function quotaNoticeJobs(trx: Queryable, workspaceId: string, config: Pick<Config, 'publicUrl'>): Promise<string[]> {
  const workspace = await trx.selectFrom('workspaces').select(['id', 'name', 'plan', 'ownerId']).where('id', '=', workspaceId).executeTakeFirst();
  if (!workspace) return [];
  // Owners decide on an upgrade; members cannot, so they are not told.
  const owners = await ownerAddresses(trx, workspace);
  const message = quotaNoticeMessage({
    name: workspace.name,
    id: workspace.id,
    plan: workspace.plan,
    allowance: planLimits(workspace.plan).submissions,
    held: planLimits(workspace.plan).held,
    url: config.publicUrl,
  });
  return enqueueJobs(
    trx,
    owners.map(({ email }) => ({
      kind: EMAIL_KIND,
      // Automatic mail: vacation responders must not answer it (RFC 3834).
      payload: { to: [email], ...message, headers: { 'Auto-Submitted': 'auto-generated' } } satisfies EmailPayload,
    })),
  );
}

/** The addresses of a workspace's owners (its creator and any member with the owner role): who decides on its plan. */
export async function ownerAddresses(trx: Queryable, workspace: { id: string; ownerId: string }): Promise<{ email: string }[]> {
  return trx
    .selectFrom('users')
    .select('email')
    .where((eb) =>
      eb.or([
        eb('id', '=', workspace.ownerId),
        eb('id', 'in', eb.selectFrom('workspaceMembers').select('userId').where('workspaceId', '=', workspace.id).where('role', '=', 'owner')),
      ]),
    )
    .orderBy('email')
    .execute();
}

interface NoticeFacts {
  name: string;
  id: string;
  plan: string;
  allowance: number;
  /** Submissions held past the allowance at most (services/plans.ts). */
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
  const html =
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">' +
    '<p>Hello,</p>' +
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
    `<p style="color:#666">Workspace ${escapeHtml(facts.id)} · <a href="${escapeHtml(facts.url)}">${escapeHtml(facts.url)}</a></p>` +
    '<p style="color:#666">You receive this email once each time the allowance runs out.</p>' +
    '</body></html>';
  return { subject, text, html };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
