// A form's webhook body (issue 42, item 5): its format and template, checked when written against the
// form's example data, and previewed as the webhook would send it (docs/webhooks.md, Body templates).
import type { Database } from '../db/database.js';
import { fromJson } from '../db/database.js';
import {
  DEFAULT_WEBHOOK_BODY,
  WEBHOOK_BODY_CONTENT_TYPES,
  type WebhookBody,
  type WebhookBodyFormat,
  webhookBodyOf,
  webhookBodyProblems,
} from '../domain/webhook-body.js';
import { ProblemError, validationError } from '../errors.js';
import { sharedTemplateWorkers, type TemplateOutcome, type TemplateWorkers } from '../mail/template-workers.js';
import { type FormService, formTarget } from './forms.js';
import type { AuditLog } from './audit-log.js';
import { SAMPLE_DATA } from './templates.js';

/** What a form's webhook body is set to, as the dashboard shows it. */
export interface WebhookBodySetting extends WebhookBody {
  /** What the template holds as stored, kept while another format is chosen (null: none written). */
  storedTemplate: string | null;
}

/** The fields a template is checked and previewed with: the form's latest accepted submission's, else the sample. */
export interface ExampleData {
  data: Record<string, unknown>;
  /** `latest`: the form's latest accepted submission; `sample`: it has none yet. */
  from: 'latest' | 'sample';
}

/** A body as the webhook would send it, or why the template cannot make one with the example data. */
export type BodyPreview =
  | { ok: true; body: string; contentType: string; example: ExampleData }
  | { ok: false; errors: string[]; example: ExampleData; format: WebhookBodyFormat };

/** The form's webhook body as stored (the default when none is set): what the test webhook sends too. */
export async function storedWebhookBody(database: Database, formId: string): Promise<WebhookBodySetting> {
  const row = await database.db.selectFrom('forms').select(['webhookBodyFormat', 'webhookBodyTemplate']).where('id', '=', formId).executeTakeFirst();
  if (!row) return { ...DEFAULT_WEBHOOK_BODY, storedTemplate: null };
  return { ...webhookBodyOf(row), storedTemplate: row.webhookBodyTemplate };
}

/** The form's latest accepted submission's fields (as stored: a file's `url` is the API's address), else the sample. */
export async function exampleData(database: Database, formId: string): Promise<ExampleData> {
  const row = await database.db
    .selectFrom('submissions')
    .select('data')
    .where('formId', '=', formId)
    .where('status', '=', 'accepted')
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { data: fromJson<Record<string, unknown>>(row.data), from: 'latest' } : { data: { ...SAMPLE_DATA }, from: 'sample' };
}

export class WebhookBodyService {
  constructor(
    private readonly database: Database,
    private readonly forms: FormService,
    private readonly audit: AuditLog,
    private readonly renderer: TemplateWorkers = sharedTemplateWorkers(),
  ) {}

  /** A member's view of the form's setting. */
  async getForMember(userId: string, formId: string): Promise<WebhookBodySetting> {
    await this.forms.formForMember(userId, formId);
    return storedWebhookBody(this.database, formId);
  }

  /** The form's example data, for a member. */
  async exampleForMember(userId: string, formId: string): Promise<ExampleData> {
    await this.forms.formForMember(userId, formId);
    return exampleData(this.database, formId);
  }

  /**
   * The body `format` and `template` make with the form's example data, rendered as the webhook renders
   * it (a draft: not kept compiled). A template that cannot make a body answers its problems, each
   * naming `webhookBodyTemplate`; a format or template refused before rendering is `validation_error`.
   */
  async previewForMember(userId: string, formId: string, format: unknown, template: unknown): Promise<BodyPreview> {
    await this.forms.formForMember(userId, formId);
    const problems = webhookBodyProblems(format, template);
    if (problems.length) throw validationError(problems, 'The webhook body cannot be previewed.');
    return this.render(format as WebhookBodyFormat, template as string, await exampleData(this.database, formId), false);
  }

  /**
   * Stores the form's body: the format, and the template that it must render into a body with the
   * form's example data (valid JSON for `json-template`, name=value pairs for `urlencoded-template`).
   * Refused (`validation_error`, each problem naming its field; nothing stored): an unknown format, a
   * template empty or longer than allowed, one that does not compile or cannot make a body. Choosing
   * `json` keeps the template typed (null when none), unused, so going back to it loses nothing.
   */
  async putForMember(userId: string, formId: string, format: unknown, template: unknown): Promise<void> {
    const form = await this.forms.formForMember(userId, formId);
    const problems = webhookBodyProblems(format, template);
    if (problems.length) throw validationError(problems, 'The webhook body was not saved.');
    const typed = typeof template === 'string' && template.trim() !== '' ? template : null;
    if (format !== 'json') {
      const preview = await this.render(format as WebhookBodyFormat, typed as string, await exampleData(this.database, formId), true);
      if (!preview.ok) throw validationError(preview.errors, 'The webhook body was not saved.');
    } else if (typed !== null && webhookBodyProblems('json-template', typed).length > 0) {
      // kept unused, but never longer than a template may be
      throw validationError(webhookBodyProblems('json-template', typed), 'The webhook body was not saved.');
    }
    await this.database.transaction(async (trx) => {
      await trx
        .updateTable('forms')
        .set({ webhookBodyFormat: format === 'json' ? null : (format as string), webhookBodyTemplate: typed, updatedAt: Date.now() })
        .where('id', '=', formId)
        .execute();
      await this.audit.record({ action: 'form.webhook_body_saved', workspaceId: form.workspaceId, target: formTarget(form), details: { format } }, trx);
    });
  }

  private async render(format: WebhookBodyFormat, template: string, example: ExampleData, keep: boolean): Promise<BodyPreview> {
    if (format === 'json') return { ok: true, body: JSON.stringify(example.data), contentType: WEBHOOK_BODY_CONTENT_TYPES.json, example };
    const outcome = await this.renderer.renderBody(template, example.data, format === 'json-template' ? 'json' : 'urlencoded', keep);
    if (outcome.ok) return { ok: true, body: outcome.text, contentType: WEBHOOK_BODY_CONTENT_TYPES[format], example };
    return { ok: false, errors: problemsOf(outcome, example), example, format };
  }
}

/** A render that failed, as problems naming the template: what was wrong, and with which data. */
function problemsOf(outcome: Exclude<TemplateOutcome, { ok: true }>, example: ExampleData): string[] {
  const against = example.from === 'latest' ? "with the form's latest submission" : 'with the sample data';
  if (outcome.problem === 'invalid')
    return outcome.errors.map((error) => `webhookBodyTemplate: ${error.startsWith('the body') ? `${error} (${against})` : error}`);
  // the watchdog or the safety net: the machine's doing, not the template's
  if (outcome.problem === 'too_slow') throw new ProblemError('upstream_unavailable', 'The template could not be checked just now; try again.');
  return [`webhookBodyTemplate: ${outcome.message} ${against}`];
}
