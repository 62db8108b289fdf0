import type { Database } from '../../db/database.js';
import { fromJson } from '../../db/database.js';
import type { Config } from '../../config/config.js';
import { fieldRows, OPEN_LABEL, submissionPageUrl } from '../../mail/notification.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import { deliveredFileOf, readableSize, type DeliveredFile } from '../../domain/file-values.js';
import { lookupBySubmission, submissionGone, submissionIdOf, type Channel, type DeliveryReceipt, type Job } from './channel.js';
import type { DeliveryFiles } from './submission-files.js';

export const SLACK_KIND = 'slack';

const TIMEOUT_MS = 10_000;
// Slack's answers that no retry can fix: the owner must change the token or the channel.
const PERMANENT_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'msg_too_long',
  'invalid_arguments',
  'restricted_action',
]);

/** Posts a submission to the form's `slackChannel` with `chat.postMessage`, using the form's stored Slack token. */
export class SlackChannel implements Channel {
  constructor(
    private readonly database: Database,
    private readonly apiUrl: string,
    /** The submissions' files: each shown by name with a link signed for 7 days when the message is sent. */
    private readonly files: DeliveryFiles,
    /** FORMGATE_PUBLIC_URL (read when sent): the message links to the submission's page there. */
    private readonly config: Pick<Config, 'publicUrl'>,
  ) {}

  private readonly submissions = lookupBySubmission((submissionIds) =>
    this.database.db
      .selectFrom('submissions')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .leftJoin('formSecrets', (join) => join.onRef('formSecrets.formId', '=', 'forms.id').on('formSecrets.provider', '=', 'SLACK'))
      .select(['submissions.id', 'submissions.data', 'forms.name', 'forms.slackChannel', 'formSecrets.secret as token'])
      .where('submissions.id', 'in', submissionIds)
      .execute(),
  );

  async send(job: Job): Promise<DeliveryReceipt> {
    const row = await this.submissions.load(submissionIdOf(job));
    if (!row) throw submissionGone();
    if (!row.slackChannel) throw new DeliveryError('the form has no Slack channel any more', { permanent: true });
    if (!row.token)
      throw new DeliveryError(
        'no Slack token is stored for the form: store it on the form’s Settings page (Secret keys) or with formgate forms set-secret --provider SLACK',
        { permanent: true },
      );

    const data = fromJson<Record<string, unknown>>(row.data);
    const files = await this.files.of(row.id, data);
    const now = Date.now();
    const response = await fetch(`${this.apiUrl}/chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${row.token}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({
        channel: row.slackChannel,
        text: slackText(row.name, data, files, (file) => this.files.signedUrl(file, now), submissionPageUrl(this.config.publicUrl, row.id)),
        unfurl_links: false,
        unfurl_media: false,
      }),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }).catch((err: unknown) => {
      throw new DeliveryError(`Slack could not be reached: ${(err as Error).message}`, { permanent: false, cause: err });
    });
    const answer = (await response.json().catch(() => null)) as { ok?: boolean; error?: string } | null;
    if (response.ok && answer?.ok === true) return { statusCode: response.status };
    const error = answer?.error ?? `HTTP ${response.status}`;
    const permanent = response.status !== 429 && response.status < 500 && PERMANENT_ERRORS.has(error);
    throw new DeliveryError(`Slack refused the message: ${error}`, { permanent, statusCode: response.status });
  }
}

/**
 * A readable message: the form's name, then one `name: value` line per field (Slack's own escaping
 * applied); a file is its name linked to `link(file)` and its size, then a line says how long the
 * links work, and the last links to `submissionUrl`, the submission's page (none when absent).
 */
export function slackText(
  formName: string,
  data: Record<string, unknown>,
  files: readonly DeliveredFile[] = [],
  link: (file: DeliveredFile) => string = () => '',
  submissionUrl?: string,
): string {
  const rows = files.length === 0 ? fieldRows(data) : fieldRows(data, (value) => deliveredFileOf(value, files));
  const lines = rows.map(
    ([name, value]) =>
      `*${escapeSlack(name)}:* ${typeof value === 'string' ? escapeSlack(value) : `${slackLink(link(value), value.name)} (${readableSize(value.size)})`}`,
  );
  const expiry = files.length === 0 ? [] : ['_Links to files work for 7 days._'];
  const open = submissionUrl ? [slackLink(submissionUrl, OPEN_LABEL)] : [];
  return [`New submission to *${escapeSlack(formName)}*`, ...lines, ...expiry, ...open].join('\n');
}

/**
 * A link in Slack's markup, `<url|text>`: both escaped, and a `|` in the address written `%7C`, since
 * Slack ends the address at the first one.
 */
export function slackLink(url: string, text: string): string {
  return `<${escapeSlack(url).replace(/\|/g, '%7C')}|${escapeSlack(text)}>`;
}

// Slack reads &, < and > as markup (links, mentions); everything else is shown as sent.
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
