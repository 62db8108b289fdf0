import { deliveredFileOf, readableSize, type DeliveredFile } from '../domain/file-values.js';
import { submitterAddress } from '../domain/submitter-address.js';
import { headerText } from './header-text.js';
import { withoutHiddenCharacters } from '../domain/uploads.js';
import { emailDocument } from './email-document.js';
import { notificationMessageId } from './message-id.js';
import type { TemplateFile } from './template-workers.js';
import type { MailMessage } from './transport.js';

export { headerText } from './header-text.js';
export { notificationMessageId } from './message-id.js';

/** What the notification of one submission to one recipient is built from. */
export interface NotificationInput {
  /** `subject` and `fromName`: the form's own (its Settings; null: the defaults), which a post's `_email.subject` / `_email.from` override. */
  form: { id: string; name: string; emailThreading: boolean; subject?: string | null; fromName?: string | null };
  /** The one recipient: each gets a message of their own, so no one sees who else is told. */
  to: string;
  submission: { id: string; createdAt: number; data: Record<string, unknown>; emailControls: Record<string, string> | null };
  /** The domain that names the message ids: FORMGATE_PUBLIC_URL's host (mail/message-id.ts). */
  idDomain: string;
  /** The form's notification template, rendered; the default layout when absent. */
  rendered?: { html: string; text: string } | null;
  /** The submission's stored files, which the default layout lists, each linked to `submissionUrl`. */
  files?: readonly DeliveredFile[];
  /**
   * The dashboard's page of the submission (`submissionPageUrl`), which the default layout links as
   * "Open in Formgate" (none when absent). A login is asked there: an email is forwarded and kept.
   */
  submissionUrl?: string;
}

/** A notification, plus the display name `_email.from` asks for (the address stays the configured sender). */
export type NotificationMessage = MailMessage & { fromName: string | null };

const SUBJECT_MAX = 200;
const NAME_MAX = 64;

/**
 * The email to one of a form's recipients: default layout (every field, escaped) or the rendered
 * template, `_email.subject` / `_email.from` / reply-to applied with header injection neutralised,
 * and with `emailThreading` every notification of the form in one thread.
 */
export function notificationMessage(input: NotificationInput): NotificationMessage {
  const { form, submission } = input;
  const controls = submission.emailControls ?? {};
  const subject =
    headerText(controls['_email.subject'], SUBJECT_MAX) ||
    headerText(form.subject ?? undefined, SUBJECT_MAX) ||
    headerText(`New submission: ${form.name}`, SUBJECT_MAX);
  const replyTo = submitterAddress({ data: submission.data, controls });
  const domain = input.idDomain;
  // Automatic mail (RFC 3834), whose Reply-To is the visitor: a recipient's vacation responder must not answer them.
  const headers: Record<string, string> = { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' };
  if (form.emailThreading) {
    // Every notification refers to one root id per form, so mail clients keep them in one thread.
    const root = `<form-${form.id}@${domain}>`;
    headers['In-Reply-To'] = root;
    headers.References = root;
  }
  const files = { list: input.files ?? [], url: input.submissionUrl ?? '' };
  const body = input.rendered ?? defaultLayout(subject, form.name, submission, layoutOptionsOf(controls), files);
  return {
    to: [input.to],
    subject,
    text: body.text,
    html: body.html,
    ...(replyTo ? { replyTo } : {}),
    headers,
    messageId: notificationMessageId(submission.id, input.to, domain),
    fromName: headerText(controls['_email.from'], NAME_MAX) || headerText(form.fromName ?? undefined, NAME_MAX) || null,
  };
}

/**
 * Where a notification (and a chat message) links a submission and its files: its page in the
 * dashboard, which asks for a login. NOTE: not a signed link: an email is forwarded and kept for years.
 */
export function submissionPageUrl(publicUrl: string, submissionId: string): string {
  return `${publicUrl}/submissions/${encodeURIComponent(submissionId)}`;
}

/**
 * What a preview or a test email links as the submission's page when no submission fills it in (the
 * sample, or data given to the API's preview): the form's inbox in the dashboard.
 */
export function formInboxUrl(publicUrl: string, formId: string): string {
  return `${publicUrl}/forms/${encodeURIComponent(formId)}`;
}

/** The files as a notification template reads them (`{{#each files}}`). */
export function templateFiles(files: readonly DeliveredFile[], submissionUrl: string): TemplateFile[] {
  return files.map((file) => ({ field: file.field, name: file.name, type: file.type, size: file.size, sizeText: readableSize(file.size), url: submissionUrl }));
}

/**
 * The submitted fields as name/value rows: nested names dotted (`car.color`), arrays joined. With
 * `leaf`, an object it answers for is one row of its answer (a file: one row, not four).
 */
export function fieldRows(data: Record<string, unknown>): [string, string][];
export function fieldRows<T>(data: Record<string, unknown>, leaf: (value: object) => T | undefined): [string, string | T][];
export function fieldRows<T>(data: Record<string, unknown>, leaf?: (value: object) => T | undefined): [string, string | T][] {
  const rows: [string, string | T][] = [];
  const walk = (prefix: string, value: unknown) => {
    const own = leaf && value !== null && typeof value === 'object' ? leaf(value) : undefined;
    if (own !== undefined) rows.push([prefix, own]);
    else if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) rows.push([prefix, value.map(String).join(', ')]);
    else if (Array.isArray(value))
      value.forEach((v, i) => {
        walk(`${prefix}[${i}]`, v);
      });
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(prefix ? `${prefix}.${k}` : k, v);
    else rows.push([prefix, value === null || value === undefined ? '' : String(value)]);
  };
  walk('', data);
  // a name is the visitor's text shown as a label: no bidirectional control or invisible character (issue 38, item 17)
  for (const row of rows) row[0] = withoutHiddenCharacters(row[0]);
  return rows;
}

const TITLE_MAX = 200;
/** The words of the default layout's link to the submission's page (and of the chat messages' link). */
export const OPEN_LABEL = 'Open in Formgate';
const OPEN_BUTTON =
  'display:inline-block;padding:8px 14px;background:#1d4ed8;color:#ffffff;border-radius:6px;text-decoration:none;font-size:14px;font-weight:600;';
const OFF_WORDS = new Set(['false', '0', 'no', 'off']);

/** The default layout's title and footer, as `_email.template.title` / `_email.template.footer` ask (the hosted service's controls). */
interface LayoutOptions {
  /** null: no title at all (`_email.template.title=false`). */
  title: string | null | undefined;
  footer: boolean;
}

function layoutOptionsOf(controls: Record<string, string>): LayoutOptions {
  // NOTE: read only the start: a visitor's control may be 256 KB, and this runs once per recipient
  const title = (controls['_email.template.title'] ?? '').slice(0, 4 * TITLE_MAX).trim();
  const footer = (controls['_email.template.footer'] ?? '').slice(0, 16).trim().toLowerCase();
  return {
    // one line of at most TITLE_MAX characters: a title is a heading, not a message
    title: title === '' ? undefined : title.toLowerCase() === 'false' ? null : Array.from(title.replace(/\s+/g, ' ')).slice(0, TITLE_MAX).join(''),
    footer: !OFF_WORDS.has(footer),
  };
}

/** The submission's files for the default layout: the stored ones, and the submission's page (linked as "Open in Formgate"). */
interface LayoutFiles {
  list: readonly DeliveredFile[];
  url: string;
}

/** How a file reads beside its field: `cv.pdf (47.1 KB, application/pdf)`. */
function fileSummary(file: DeliveredFile): string {
  return `${file.name} (${readableSize(file.size)}, ${file.type})`;
}

function defaultLayout(
  subject: string,
  formName: string,
  submission: NotificationInput['submission'],
  options: LayoutOptions,
  files: LayoutFiles,
): { html: string; text: string } {
  const rows = files.list.length === 0 ? fieldRows(submission.data) : fieldRows(submission.data, (value) => deliveredFileOf(value, files.list));
  const when = `${new Date(submission.createdAt).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  const title = options.title === undefined ? `New submission to ${formName}` : options.title;
  const footer = `Submission ${submission.id}`;
  const opens = files.url !== '';
  const linked = files.list.length > 0 && opens;
  const filesNote = `Download ${files.list.length === 1 ? 'the file' : `the ${files.list.length} files`} from the submission's page in Formgate (you will be asked to log in).`;
  const text = [
    title === null ? when : `${title} (${when})`,
    '',
    ...rows.map(([name, value]) => `${name}: ${typeof value === 'string' ? value : fileSummary(value)}`),
    ...(opens ? ['', ...(linked ? [filesNote] : []), `${OPEN_LABEL}: ${files.url}`] : []),
    ...(options.footer ? ['', footer] : []),
  ].join('\n');
  const cell = 'padding:8px 12px;border-bottom:1px solid #e5e7eb;vertical-align:top;text-align:left;';
  const link = 'color:#1d4ed8;';
  const valueHtml = (value: string | DeliveredFile) =>
    typeof value === 'string'
      ? escapeHtml(value).replace(/\r?\n/g, '<br>')
      : `${linked ? `<a href="${escapeHtml(files.url)}" style="${link}">${escapeHtml(value.name)}</a>` : escapeHtml(value.name)} <span style="color:#6b7280;">(${escapeHtml(readableSize(value.size))}, ${escapeHtml(value.type)})</span>`;
  const htmlRows = rows
    .map(
      ([name, value]) =>
        `<tr><th scope="row" style="${cell}color:#374151;font-weight:600;white-space:nowrap;">${escapeHtml(name)}</th><td style="${cell}color:#111827;">${valueHtml(value)}</td></tr>`,
    )
    .join('');
  const heading = title === null ? '' : `<h1 style="margin:0 0 4px;font-size:18px;color:#111827;">${escapeHtml(title)}</h1>\n`;
  const filesHtml = linked ? `\n<p style="margin:16px 0 0;font-size:14px;color:#374151;">${escapeHtml(filesNote)}</p>` : '';
  const openHtml = opens ? `\n<p style="margin:16px 0 0;"><a href="${escapeHtml(files.url)}" style="${OPEN_BUTTON}">${OPEN_LABEL}</a></p>` : '';
  const footerHtml = options.footer ? `\n<p style="margin:16px 0 0;font-size:12px;color:#9ca3af;">${escapeHtml(footer)}</p>` : '';
  const html = emailDocument({
    title: subject,
    bodyStyle: 'margin:0;padding:24px;background:#f9fafb;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;',
    body: `<div style="max-width:640px;margin:0 auto;background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:24px;">
${heading}<p style="margin:0 0 16px;font-size:13px;color:#6b7280;">${escapeHtml(when)}</p>
<table style="width:100%;border-collapse:collapse;font-size:14px;"><tbody>${htmlRows}</tbody></table>${filesHtml}${openHtml}${footerHtml}
</div>`,
  });
  return { html, text };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
