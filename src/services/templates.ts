import type { Database } from '../db/database.js';
import { fromJson } from '../db/database.js';
import type { TemplateKind, TemplateRow } from '../db/schema/template.js';
import { ProblemError, validationError } from '../errors.js';
import { autoresponderMessage } from '../mail/autoresponder.js';
import { notificationMessage } from '../mail/notification.js';
import { SpamdError } from '../mail/spamd.js';
import { TEMPLATE_LIMITS } from '../mail/template-engine.js';
import type { AutoresponderChecker } from '../mail/template-check.js';
import { sharedTemplateWorkers, type TemplateOutcome, type TemplateWorkers } from '../mail/template-workers.js';
import type { Access, FormService } from './forms.js';

/** What a preview renders when the form has no submission yet (documented in docs/templates.md). */
export const SAMPLE_DATA = { name: 'Jane Doe', email: 'jane@example.com', message: 'Hello! I would like to know more about your services.' };

// The submitter is not known when a template is written; a reserved address stands in for them.
const DRAFT_RECIPIENT = 'submitter@example.com';

export class TemplateService {
  constructor(
    private readonly database: Database,
    private readonly forms: FormService,
    private readonly checker: AutoresponderChecker,
    private readonly renderer: TemplateWorkers = sharedTemplateWorkers(),
  ) {}

  async getTemplate(userId: string, formId: string, kind: TemplateKind, access: Access = {}): Promise<TemplateRow> {
    await this.forms.formForMember(userId, formId, access);
    return this.requireTemplate(formId, kind);
  }

  /**
   * Compiles the code, then stores it (creating the template if absent). A template that does not
   * compile, or that compiles (and renders with no data) slower than a render may take, is
   * `template_invalid` and the stored one is kept. The autoresponder is content checked
   * first (the rules, and spamd when configured): what trips the check is stored paused, and the
   * write still succeeds; a configured spamd that gives no verdict is `upstream_unavailable` and
   * nothing is stored. `pausedFor` says why the template was paused (empty when it was not).
   */
  async putTemplate(
    userId: string,
    formId: string,
    kind: TemplateKind,
    code: string,
    access: Access = {},
  ): Promise<{ template: TemplateRow; pausedFor: string[] }> {
    const form = await this.forms.formForMember(userId, formId, access);
    const compiled = await this.renderer.check(code);
    if (!compiled.ok) throw new ProblemError('template_invalid', 'The template could not be compiled; nothing was stored.', { errors: problemsOf(compiled) });
    let paused: number | null = null;
    let pausedFor: string[] = [];
    if (kind === 'autoresponder') {
      // the check reads the template alone, as it would be sent with no submission filled in
      const message = autoresponderMessage({ formName: form.name, to: DRAFT_RECIPIENT, body: { html: compiled.html, text: compiled.text } });
      const verdict = await this.checker.check({ code, message }).catch((error: unknown) => {
        if (!(error instanceof SpamdError)) throw error;
        throw Object.assign(new ProblemError('upstream_unavailable', 'The content checker could not be reached; nothing was stored. Try again in a moment.'), {
          cause: error,
        });
      });
      paused = verdict.paused ? 1 : 0;
      if (verdict.paused) pausedFor = verdict.reasons;
    }
    // kept, so the dashboard can say why the autoresponder is not being sent
    const pausedReasons = pausedFor.length > 0 ? JSON.stringify(pausedFor) : null;
    const now = Date.now();
    await this.database.db
      .insertInto('templates')
      .values({ formId, kind, mode: 'code', code, paused, pausedReasons, createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.columns(['formId', 'kind']).doUpdateSet({ mode: 'code', code, paused, pausedReasons, updatedAt: now }))
      .execute();
    return { template: await this.requireTemplate(formId, kind), pausedFor };
  }

  /** Removes the template: notifications go back to the default layout; the autoresponder is off. */
  async deleteTemplate(userId: string, formId: string, kind: TemplateKind, access: Access = {}): Promise<void> {
    await this.forms.formForMember(userId, formId, access);
    const result = await this.database.db.deleteFrom('templates').where('formId', '=', formId).where('kind', '=', kind).executeTakeFirst();
    if (result.numDeletedRows === 0n) throw notFound(formId, kind);
  }

  /**
   * Renders without sending: against `data`, else the form's latest submission, else a sample.
   * Only a caller who may read submissions (`seesSubmissions`) is shown one: anyone else gets the sample.
   */
  async previewTemplate(
    userId: string,
    formId: string,
    kind: TemplateKind,
    data: Record<string, unknown> | undefined,
    seesSubmissions: boolean,
    access: Access = {},
  ): Promise<{ html: string; text: string }> {
    const form = await this.forms.formForMember(userId, formId, access);
    const template = await this.findTemplate(formId, kind);
    if (!template && kind === 'autoresponder') throw notFound(formId, kind);
    const fields = data ?? (seesSubmissions ? await this.latestSubmissionData(formId) : SAMPLE_DATA);
    if (!template) {
      // no notification template: the default layout is what would be sent
      const message = notificationMessage({
        form: { id: form.id, name: form.name, emailThreading: false },
        to: 'preview@formgate.invalid',
        submission: { id: 'preview', createdAt: Date.now(), data: fields, emailControls: null },
        mailFrom: 'preview@formgate.invalid',
      });
      return { html: message.html ?? '', text: message.text };
    }
    const rendered = await this.renderer.render(template.code, fields);
    if (rendered.ok) return { html: rendered.html, text: rendered.text };
    if (rendered.problem === 'invalid') throw new ProblemError('template_invalid', 'The stored template no longer compiles.', { errors: rendered.errors });
    const against = data ? 'with this data' : fields === SAMPLE_DATA ? 'with the sample data' : "with the form's latest submission";
    throw validationError([`data: ${rendered.message} ${against}`], 'The template cannot be rendered with this data.');
  }

  private async latestSubmissionData(formId: string): Promise<Record<string, unknown>> {
    const latest = await this.database.db
      .selectFrom('submissions')
      .select('data')
      .where('formId', '=', formId)
      .where('status', '=', 'accepted')
      .orderBy('createdAt', 'desc')
      .limit(1)
      .executeTakeFirst();
    return latest ? fromJson<Record<string, unknown>>(latest.data) : SAMPLE_DATA;
  }

  private findTemplate(formId: string, kind: TemplateKind): Promise<TemplateRow | undefined> {
    return this.database.db.selectFrom('templates').selectAll().where('formId', '=', formId).where('kind', '=', kind).executeTakeFirst();
  }

  private async requireTemplate(formId: string, kind: TemplateKind): Promise<TemplateRow> {
    const template = await this.findTemplate(formId, kind);
    if (!template) throw notFound(formId, kind);
    return template;
  }
}

/** The `errors` of a refused write: one entry per problem. */
function problemsOf(outcome: Exclude<TemplateOutcome, { ok: true }>): string[] {
  if (outcome.problem === 'invalid') return outcome.errors;
  if (outcome.problem === 'too_large') return [`code: ${outcome.message}`];
  return [`code: ${outcome.message} (a render may take ${TEMPLATE_LIMITS.timeMs} ms); write it with fewer placeholders and blocks`];
}

function notFound(formId: string, kind: TemplateKind): ProblemError {
  return new ProblemError('not_found', `Form ${formId} has no ${kind} template.`);
}

/** The Template resource of 2.5. */
export function toTemplateResource(t: TemplateRow) {
  return { kind: t.kind, mode: t.mode, code: t.code, updatedAt: new Date(t.updatedAt).toISOString(), paused: t.paused === null ? null : t.paused === 1 };
}
