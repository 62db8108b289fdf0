/** What a delivery is, in the same words on every page: "Notification email", "Webhook". */
const KIND_NAMES: Record<string, string> = {
  notification: 'Notification email',
  autoresponder: 'Autoresponder',
  webhook: 'Webhook',
  hook: 'Automation (subscription)',
  slack: 'Slack message',
  email: 'Email',
  'slack-webhook': 'Slack message (webhook)',
  discord: 'Discord message',
  teams: 'Teams message',
  telegram: 'Telegram message',
  airtable: 'Airtable record',
  notion: 'Notion page',
  'google-sheets': 'Google Sheets row',
  brevo: 'Newsletter sign-up (Brevo)',
  listmonk: 'Newsletter sign-up (listmonk)',
  mailchimp: 'Newsletter sign-up (Mailchimp)',
};

const EMAIL_KINDS = new Set(['notification', 'autoresponder', 'email']);

/** How a delivery's status code is read: SMTP for an email, HTTP for every other channel. */
export function deliveryProtocol(kind: string): 'SMTP' | 'HTTP' {
  return EMAIL_KINDS.has(kind) ? 'SMTP' : 'HTTP';
}

export function deliveryKindName(kind: string): string {
  return KIND_NAMES[kind] ?? kind;
}

/** "/srv/formgate/data/outbox/2025-…eml" as its folder and its file's name, to be shown apart. */
export function folderAndFile(file: string): { folder: string; name: string } {
  const cut = file.lastIndexOf('/');
  return cut < 0 ? { folder: '.', name: file } : { folder: file.slice(0, cut) || '/', name: file.slice(cut + 1) };
}
