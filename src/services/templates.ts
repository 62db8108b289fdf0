import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { fromJson } from '../db/database.js';
import { storedFilesOfSubmissions } from '../db/delivered-files.js';
import type { TemplateKind, TemplateRow } from '../db/schema/template.js';
import { fileIdsNamedIn, withoutFileUrls, type DeliveredFile } from '../domain/file-values.js';
import { ProblemError, validationError } from '../errors.js';
import { submitterAddress } from '../domain/submitter-address.js';
import { EMAIL_KIND, type EmailPayload } from '../jobs/channels/email.js';
import { enqueueJob } from '../jobs/outbox.js';
import { autoresponderMessage, siteOf } from '../mail/autoresponder.js';
import { headerText } from '../mail/header-text.js';
import { formInboxUrl, notificationMessage, submissionPageUrl, templateFiles } from '../mail/notification.js';
import { SpamdError } from '../mail/spamd.js';
import type { AutoresponderChecker } from '../mail/template-check.js';
import { fieldPaths } from '../mail/template-placeholders.js';
import { renderSubject } from '../mail/subject-template.js';
import { sharedTemplateWorkers, type TemplateOutcome, type TemplateWorkers } from '../mail/template-workers.js';
import { type Access, allowedOriginsOf, type FormService, formTarget } from './forms.js';
import type { AuditLog } from './audit-log.js';
import { requireUnchanged } from './read-only-fields.js';

/** A form's stored template, as pages read it. */
export type Template = TemplateRow;
export type { TemplateKind };

/** What a preview renders when the form has no submission yet (documented in docs/templates.md). */
export const SAMPLE_DATA = { name: 'Jane Doe', email: 'jane@example.com', message: 'Hello! I would like to know more about your services.' };

// The submitter is not known when a template is written; a reserved address stands in for them.
const DRAFT_RECIPIENT = 'submitter@example.com';
// The dashboard lists the fields seen in this many of the form's newest submissions.
const FIELD_SAMPLE = 50;

/** A stored submission as the message builders read it. */
interface SubmissionForEmail {
  id: string;
  createdAt: number;
  data: Record<string, unknown>;
  emailControls: Record<string, string> | null;
}

/** An email as it would be sent (subject, recipient, HTML and text), and what filled it in. */
export interface EmailPreview {
  subject: string;
  /** The notification's first recipient or the submitter's address; null when there is none to send to. */
  to: string | null;
  replyTo: string | null;
  fromName: string | null;
  html: string;
  text: string;
  /** The latest accepted submission's time, or null: the sample filled it in. */
  submissionAt: number | null;
  /** `default`: the notification has no template and is sent in the default layout. */
  layout: 'template' | 'default';
}

export class TemplateService {
  constructor(
    private readonly database: Database,
    private readonly forms: FormService,
    private readonly checker: AutoresponderChecker,
    /** FORMGATE_PUBLIC_URL: a notification links to the submission's page there, and its files too (read when used: serve sets it once listening). */
    private readonly config: Pick<Config, 'publicUrl'>,
    private readonly audit: AuditLog,
    private readonly renderer: TemplateWorkers = sharedTemplateWorkers(),
  ) {}

  async getTemplate(userId: string, formId: string, kind: TemplateKind, access: Access = {}): Promise<TemplateRow> {
    await this.forms.formForMember(userId, formId, access);
    return this.requireTemplate(formId, kind);
  }

  /**
   * Compiles the code, then stores it (creating the template if absent). A template that does not
   * compile, or holds more than a template may (template-size.ts), is `template_invalid` and the
   * stored one is kept; one the template workers' watchdog stopped is `upstream_unavailable`. The autoresponder is content checked
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
    /** The read-only `kind` of a Template sent back with its code: it must be the one written. */
    sentBack: { kind?: string } = {},
  ): Promise<{ template: TemplateRow; pausedFor: string[] }> {
    const form = await this.forms.formForMember(userId, formId, access);
    requireUnchanged([{ name: 'kind', sent: sentBack.kind, stored: kind, why: `must be the kind in the path (${kind})` }]);
    const compiled = await this.renderer.check(code);
    // only the safety net says too_slow here (what a template holds is counted): the machine's answer, not the template's
    if (!compiled.ok && compiled.problem === 'too_slow')
      throw new ProblemError(
        'upstream_unavailable',
        `The template could not be checked in time (${compiled.message}); nothing was stored. Try again in a moment.`,
      );
    if (!compiled.ok) throw new ProblemError('template_invalid', 'The template could not be compiled; nothing was stored.', { errors: problemsOf(compiled) });
    let paused: number | null = null;
    let pausedFor: string[] = [];
    if (kind === 'autoresponder') {
      // the check reads the template alone, as it would be sent with no submission filled in
      const message = autoresponderMessage({
        to: DRAFT_RECIPIENT,
        body: { html: compiled.html, text: compiled.text },
        subject: await renderSubject(form.autoresponseSubject, {}, this.renderer),
        fromName: form.autoresponseFromName,
        site: siteOf(allowedOriginsOf(form)),
      });
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
    await this.database.transaction(async (trx) => {
      await trx
        .insertInto('templates')
        .values({ formId, kind, mode: 'code', code, paused, pausedReasons, createdAt: now, updatedAt: now })
        .onConflict((oc) => oc.columns(['formId', 'kind']).doUpdateSet({ mode: 'code', code, paused, pausedReasons, updatedAt: now }))
        .execute();
      await this.audit.record(
        { action: 'template.saved', workspaceId: form.workspaceId, target: formTarget(form), details: { kind, paused: paused === 1 } },
        trx,
      );
    });
    return { template: await this.requireTemplate(formId, kind), pausedFor };
  }

  /** Removes the template: notifications go back to the default layout; the autoresponder is off. */
  async deleteTemplate(userId: string, formId: string, kind: TemplateKind, access: Access = {}): Promise<void> {
    const form = await this.forms.formForMember(userId, formId, access);
    await this.database.transaction(async (trx) => {
      const result = await trx.deleteFrom('templates').where('formId', '=', formId).where('kind', '=', kind).executeTakeFirst();
      if (result.numDeletedRows === 0n) throw notFound(formId, kind);
      await this.audit.record({ action: 'template.deleted', workspaceId: form.workspaceId, target: formTarget(form), details: { kind } }, trx);
    });
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
    const latest = data === undefined && seesSubmissions ? ((await this.newestSubmissions(formId, 1))[0] ?? null) : null;
    const fields = data ?? latest?.data ?? SAMPLE_DATA;
    const files = await this.filesOf(kind, latest);
    const submissionUrl = this.pageOf(kind, formId, latest);
    if (!template) {
      // no notification template: the default layout is what would be sent
      const subject = await renderSubject(form.notificationSubject, fields, this.renderer);
      const message = notificationMessage({
        form: { id: form.id, name: form.name, emailThreading: false, subject },
        to: 'preview@formgate.invalid',
        submission: { id: 'preview', createdAt: Date.now(), data: fields, emailControls: null },
        idDomain: 'formgate.invalid',
        files: files.list,
        submissionUrl,
      });
      return { html: message.html ?? '', text: message.text };
    }
    const rendered = await this.renderer.render(template.code, kind === 'autoresponder' ? withoutFileUrls(fields) : fields, {
      files: templateFiles(files.list, files.url),
      submissionUrl,
    });
    if (rendered.ok) return { html: rendered.html, text: rendered.text };
    if (rendered.problem === 'invalid') throw new ProblemError('template_invalid', 'The stored template no longer compiles.', { errors: rendered.errors });
    const against = data ? 'with this data' : fields === SAMPLE_DATA ? 'with the sample data' : "with the form's latest submission";
    throw validationError([`data: ${rendered.message} ${against}`], 'The template cannot be rendered with this data.');
  }

  /**
   * The email the form would send, built by the code that sends it (the template workers, then the
   * notification's or the autoresponder's message builder), filled in with the form's latest
   * accepted submission, else the sample. `code` is a draft being written (not kept compiled); without
   * it, the stored template (the notification's default layout when it has none). A template that
   * does not compile is `template_invalid`; one past a render's limits `validation_error`.
   */
  async previewEmail(userId: string, formId: string, kind: TemplateKind, code?: string, access: Access = {}): Promise<EmailPreview> {
    const form = await this.forms.formForMember(userId, formId, access);
    const source = code ?? (await this.findTemplate(formId, kind))?.code;
    if (source === undefined && kind === 'autoresponder') throw notFound(formId, kind);
    const latest = (await this.newestSubmissions(formId, 1))[0] ?? null;
    const submission = latest ?? { id: 'sample', createdAt: Date.now(), data: SAMPLE_DATA, emailControls: null };
    const files = await this.filesOf(kind, latest);
    const submissionUrl = this.pageOf(kind, formId, latest);
    let body: { html: string; text: string } | null = null;
    if (source !== undefined) {
      const fields = kind === 'autoresponder' ? withoutFileUrls(submission.data) : submission.data;
      const extras = { files: templateFiles(files.list, files.url), submissionUrl };
      const outcome = code === undefined ? await this.renderer.render(source, fields, extras) : await this.renderer.renderDraft(source, fields, extras);
      if (!outcome.ok) throw renderProblem(outcome, latest ? "with the form's latest submission" : 'with the sample data');
      body = { html: outcome.html, text: outcome.text };
    }
    const recipients = fromJson<string[]>(form.notificationEmails);
    const controls = submission.emailControls ?? {};
    const filled = { submissionAt: latest?.createdAt ?? null, layout: body ? ('template' as const) : ('default' as const) };
    if (kind === 'notification') {
      const to = recipients[0] ?? null;
      const formSubject = await renderSubject(form.notificationSubject, submission.data, this.renderer);
      const message = notificationMessage({
        form: { id: form.id, name: form.name, emailThreading: false, subject: formSubject, fromName: form.notificationFromName },
        to: to ?? 'preview@formgate.invalid',
        submission,
        idDomain: 'formgate.invalid',
        rendered: body,
        files: files.list,
        submissionUrl,
      });
      const { subject, html = '', text, replyTo = null, fromName } = message;
      return { subject, to, replyTo, fromName, html, text, ...filled };
    }
    const to = submitterAddress({ data: submission.data, controls });
    const message = autoresponderMessage({
      to: to ?? DRAFT_RECIPIENT,
      replyTo: recipients[0],
      body: body!,
      subject: await renderSubject(form.autoresponseSubject, withoutFileUrls(submission.data), this.renderer),
      fromName: form.autoresponseFromName,
      site: siteOf(allowedOriginsOf(form)),
    });
    return {
      subject: message.subject,
      to,
      replyTo: message.replyTo ?? null,
      fromName: message.fromName ?? null,
      html: message.html ?? '',
      text: message.text,
      ...filled,
    };
  }

  /**
   * Sends the stored template (the notification's default layout when it has none), filled in as
   * its preview is, to `to` only, through the outbox: the subject starts with "[Test]", and it has no
   * Reply-To, so that answering a test never reaches the person who submitted the form.
   */
  async sendTest(userId: string, formId: string, kind: TemplateKind, to: string, access: Access = {}): Promise<EmailPreview> {
    const preview = await this.previewEmail(userId, formId, kind, undefined, access);
    const payload: EmailPayload = {
      to: [to],
      subject: headerText(`[Test] ${preview.subject}`, 200),
      html: preview.html,
      text: preview.text,
      fromName: preview.fromName,
      headers: { 'Auto-Submitted': 'auto-generated' },
    };
    await enqueueJob(this.database.db, { kind: EMAIL_KIND, payload });
    return preview;
  }

  /** The form's templates by kind (absent when it has none), in one query. */
  async templatesOf(userId: string, formId: string, access: Access = {}): Promise<Partial<Record<TemplateKind, TemplateRow>>> {
    await this.forms.formForMember(userId, formId, access);
    const rows = await this.database.db.selectFrom('templates').selectAll().where('formId', '=', formId).execute();
    return Object.fromEntries(rows.map((row) => [row.kind, row]));
  }

  /** The field paths (`['car', 'color']`) seen in the form's newest accepted submissions, for a template's placeholders. */
  async fieldPathsOf(userId: string, formId: string, access: Access = {}): Promise<string[][]> {
    await this.forms.formForMember(userId, formId, access);
    return fieldPaths((await this.newestSubmissions(formId, FIELD_SAMPLE)).map((s) => s.data));
  }

  /**
   * The stored files a notification of `submission` lists, as its delivery finds them (none for the
   * autoresponder, which never links to files, nor for the sample or data given to a preview).
   */
  private async filesOf(kind: TemplateKind, submission: SubmissionForEmail | null): Promise<{ list: DeliveredFile[]; url: string }> {
    if (kind !== 'notification' || submission === null) return { list: [], url: '' };
    const named = new Set(fileIdsNamedIn(submission.data));
    if (named.size === 0) return { list: [], url: '' };
    const stored = (await storedFilesOfSubmissions(this.database.db, [submission.id])).get(submission.id) ?? [];
    return { list: stored.filter((file) => named.has(file.id)), url: submissionPageUrl(this.config.publicUrl, submission.id) };
  }

  /**
   * What a preview fills in as the notification's `submissionUrl`: the submission's page, or the
   * form's inbox when the sample or given data stands in for one; none for the autoresponder, which
   * goes to the visitor (docs/templates.md).
   */
  private pageOf(kind: TemplateKind, formId: string, submission: SubmissionForEmail | null): string | undefined {
    if (kind !== 'notification') return undefined;
    return submission ? submissionPageUrl(this.config.publicUrl, submission.id) : formInboxUrl(this.config.publicUrl, formId);
  }

  private async newestSubmissions(formId: string, limit: number): Promise<SubmissionForEmail[]> {
    const rows = await this.database.db
      .selectFrom('submissions')
      .select(['id', 'createdAt', 'data', 'emailControls'])
      .where('formId', '=', formId)
      .where('status', '=', 'accepted')
      .orderBy('createdAt', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      createdAt: row.createdAt,
      data: fromJson<Record<string, unknown>>(row.data),
      emailControls: row.emailControls == null ? null : fromJson<Record<string, string>>(row.emailControls),
    }));
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
  return outcome.problem === 'invalid' ? outcome.errors : [`code: ${outcome.message}`];
}

/** Why a render gave no email: the template's problems (`template_invalid`), or the limit it ran into with this data. */
function renderProblem(outcome: Exclude<TemplateOutcome, { ok: true }>, against: string): ProblemError {
  if (outcome.problem === 'invalid') return new ProblemError('template_invalid', 'The template could not be compiled.', { errors: outcome.errors });
  return validationError([`data: ${outcome.message} ${against}`], 'The template cannot be rendered with this data.');
}

function notFound(formId: string, kind: TemplateKind): ProblemError {
  return new ProblemError('not_found', `Form ${formId} has no ${kind} template.`);
}

/** The Template resource of 2.5. */
export function toTemplateResource(t: TemplateRow) {
  return { kind: t.kind, mode: t.mode, code: t.code, updatedAt: new Date(t.updatedAt).toISOString(), paused: t.paused === null ? null : t.paused === 1 };
}
