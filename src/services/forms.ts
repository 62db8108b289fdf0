import { FORM_BEHAVIOUR_KEYS } from '../domain/form-behaviour.js';
import { fromJson, toJson, type Database } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { FormRow, FormUpdate, SecretProvider } from '../db/schema/form.js';
import { needsSecretKey, type SpamProtection } from '../domain/captcha-providers.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { type Plan, planLabel, type PlanRules } from '../domain/plans.js';
import { RETENTION_DAYS } from '../domain/retention.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { originProblem } from '../net/origin.js';
import type { OutboundGuard } from '../net/outbound-guard.js';
import { formBehaviourColumns, type FormStateName, formStates, formBehaviourOf, formBehaviourProblems, type FormBehaviourInput } from './form-behaviour.js';
import { fileUploadsColumns, fileUploadsOf, fileUploadsProblems, type FileUploadsInput } from './form-uploads.js';
import { newestAfter, type Page, type PageRequest, pageOf, pageParams } from './pagination.js';
import { FormSecrets, type SecretState, type StoredSecretProvider } from './form-secrets.js';
import { type IntakeForm, IntakeForms } from './intake-forms.js';
import { requireUnchanged } from './read-only-fields.js';
import { SPAM_JUDGE_KEYS, spamJudgeColumns, spamJudgesOf, type SpamJudgeSwitches } from './spam-judge-settings.js';
import type { RecipientService } from './recipients.js';
import type { AuditLog } from './audit-log.js';
import { releaseFiles, removeReleasedFiles } from '../db/submission-deletion.js';
import type { FileStore } from '../files/file-store.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';

/** A deleted form's submissions per transaction: each short, the event loop given back between them. */
const FORM_DELETE_BATCH = 250;

/** The settable fields of a form, as the API names them (2.3), with the behaviour's (services/form-behaviour.ts). */
export interface FormSettings extends FormBehaviourInput, SpamJudgeSwitches {
  name?: string;
  description?: string | null;
  technology?: string | null;
  notificationEmails?: string[];
  emailThreading?: boolean;
  webhookUrl?: string | null;
  slackChannel?: string | null;
  customHoneypot?: string | null;
  customSpamWords?: string | null;
  spamProtection?: SpamProtection | null;
  allowedOrigins?: string[];
  /** Days a submission is kept before the hourly retention deletes it; null: kept until deleted. */
  retentionDays?: number | null;
  /** Null: uploads off (files dropped, the rest kept); an object: uploads on with these limits, a missing key at its default. */
  fileUploads?: FileUploadsInput | null;
}

/**
 * Read-only fields of a Form that a client sent back with its change: accepted when they hold the
 * form's values (the rest, `createdAt` and `updatedAt`, are dropped by the route whatever they hold).
 */
export interface FormSentBack {
  id?: string;
  workspaceId?: string;
}

/** What deleting a form takes with it. */
export interface FormDeletionCounts {
  accepted: number;
  spam: number;
  held: number;
  templates: number;
  /** Stored captcha keys and Slack token (the webhook signing secret is not counted). */
  secrets: number;
  pendingDeliveries: number;
}

/** A form as the service hands it to pages and routes. */
export type Form = FormRow;
/** A form with its workspace's plan: what every member check returns. */
export type FormWithPlan = Form & { plan: Plan };
export type { SpamProtection };

/**
 * Who is asking: the REST API (`api`) is a paid feature, so through it a FREE workspace's forms
 * answer `upgrade_required`; the dashboard reaches them on every plan.
 */
export interface Access {
  api?: boolean;
}

// named, not `*`: see PreparedQuery
const FORM_COLUMNS = [
  'id',
  'workspaceId',
  'name',
  'description',
  'technology',
  'notificationEmails',
  'emailThreading',
  'webhookUrl',
  'webhookDisabledAt',
  'webhookDisabledReason',
  'slackChannel',
  'customHoneypot',
  'customSpamWords',
  'spamProtection',
  'allowedOrigins',
  'honeypotDrops',
  'retentionDays',
  'uploadsEnabled',
  'uploadLimits',
  ...FORM_BEHAVIOUR_KEYS,
  ...SPAM_JUDGE_KEYS,
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof FormRow)[];

// every column, as `forms.*` gives them (listForms)
const LISTED_FORM_COLUMNS = [...FORM_COLUMNS, 'chatChannels'] as const satisfies readonly (keyof FormRow)[];

// stored in columns of their own shape (services/form-behaviour.ts, services/spam-judge-settings.ts)
const BEHAVIOUR_KEYS = new Set<string>(FORM_BEHAVIOUR_KEYS);
const JUDGE_KEYS = new Set<string>(SPAM_JUDGE_KEYS);

export class FormService {
  private readonly secrets: FormSecrets;
  private readonly intake: IntakeForms;

  /** A form with its plan, when the account belongs to its workspace: every form route checks this. */
  private readonly memberForm = new PreparedQuery<{ formId: string; userId: string }, FormWithPlan>((db, { formId, userId }) =>
    db
      .selectFrom('forms')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'forms.workspaceId')
      .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
      .select(FORM_COLUMNS.map((column) => `forms.${column}` as const))
      .select('workspaces.plan')
      .where('forms.id', '=', formId)
      .where('workspaceMembers.userId', '=', userId),
  );

  // A workspace's forms with the membership check (and the plan the API checks) joined in: one
  // round trip, not two; the first page and the next ones, each built and prepared once.
  private readonly memberForms = { first: memberFormsPage(false), next: memberFormsPage(true) };

  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    /** Which webhook addresses may be saved: public ones, and those the allow list names (read at each write). */
    private readonly outbound: OutboundGuard,
    private readonly recipients: RecipientService,
    private readonly audit: AuditLog,
    /** Where a deleted form's files are removed; without it, the sweep removes them. */
    private readonly files: FileStore | null = null,
  ) {
    this.secrets = new FormSecrets(database);
    this.intake = new IntakeForms(database);
  }

  /** The workspace's forms, newest first; through the API (`api`), an upgraded workspace's only. */
  async listForms(userId: string, workspaceId: string, page: PageRequest, options: { api?: boolean } = {}): Promise<Page<FormRow>> {
    const query = page.after ? this.memberForms.next : this.memberForms.first;
    const rows = await query.execute(this.database.db, { workspaceId, userId, ...pageParams(page) });
    const listed = pageOf(rows, page.limit);
    // no rows: an empty list, or no access; the full check tells them apart (404, 402)
    const plan = listed.rows[0]?.plan ?? (await this.workspaces.getForMember(userId, workspaceId)).plan;
    if (options.api) requireUpgraded({ id: workspaceId, plan }, this.workspaces.plans);
    return { ...listed, rows: listed.rows.map(withoutPlan) };
  }

  /** Creates a form within the plan's form count (through the API, in an upgraded workspace only). */
  async createForm(userId: string, workspaceId: string, settings: FormSettings & { name: string }, access: Access = {}): Promise<FormRow> {
    return this.database.transaction(async (trx) => {
      const workspace = await this.workspaces.getForMember(userId, workspaceId, trx);
      if (access.api) requireUpgraded(workspace, this.workspaces.plans);
      // the API's schema has checked the name already; the dashboard's form has not
      const nameProblem = formNameProblem(settings.name);
      if (nameProblem) throw validationError([nameProblem]);
      this.checkSettings(settings, new Set(), workspace.plan);
      // NOTE: a no-op write takes the workspace's row lock (PostgreSQL) or the write lock (SQLite),
      // so two concurrent creates cannot both pass the count below.
      await trx
        .updateTable('workspaces')
        .set((eb) => ({ updatedAt: eb.ref('updatedAt') }))
        .where('id', '=', workspaceId)
        .execute();
      const { count } = await trx
        .selectFrom('forms')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('workspaceId', '=', workspaceId)
        .executeTakeFirstOrThrow();
      const limit = this.workspaces.plans.limits(workspace.plan).forms;
      if (Number(count) >= limit) {
        throw new ProblemError('quota_exceeded', `A workspace on the ${planLabel(workspace.plan)} plan has at most ${limit} forms; delete one or upgrade.`);
      }
      const now = Date.now();
      const form: Omit<FormRow, 'honeypotDrops'> = {
        id: newId(),
        workspaceId,
        name: settings.name,
        description: settings.description ?? null,
        technology: settings.technology ?? null,
        notificationEmails: settings.notificationEmails ?? [],
        emailThreading: settings.emailThreading ? 1 : 0,
        webhookUrl: settings.webhookUrl ?? null,
        webhookDisabledAt: null,
        webhookDisabledReason: null,
        webhookBodyFormat: null,
        webhookBodyTemplate: null,
        slackChannel: settings.slackChannel ?? null,
        customHoneypot: settings.customHoneypot ?? null,
        customSpamWords: settings.customSpamWords ?? null,
        spamProtection: settings.spamProtection ?? null,
        allowedOrigins: settings.allowedOrigins ?? [],
        retentionDays: settings.retentionDays ?? null,
        uploadsEnabled: 1,
        uploadLimits: null,
        redirectUrl: null,
        thanksTitle: null,
        thanksMessage: null,
        notificationSubject: null,
        notificationFromName: null,
        autoresponseSubject: null,
        autoresponseFromName: null,
        paused: 0,
        closesAt: null,
        maxSubmissions: null,
        chatChannels: null,
        spamAssassin: 0,
        flagDisposableAddresses: 0,
        flagSameMessage: 0,
        ...spamJudgeColumns(settings),
        ...(settings.fileUploads === undefined ? {} : fileUploadsColumns(settings.fileUploads)),
        ...formBehaviourColumns(settings),
        createdAt: now,
        updatedAt: now,
      };
      await trx
        .insertInto('forms')
        .values({ ...form, notificationEmails: toJson(form.notificationEmails), allowedOrigins: toJson(form.allowedOrigins) })
        .execute();
      await this.recipients.requestConfirmations(trx, workspaceId, settings.notificationEmails ?? [], userId);
      await this.audit.record({ action: 'form.created', workspaceId, target: formTarget(form) }, trx);
      return { ...form, honeypotDrops: 0 };
    });
  }

  async getForm(userId: string, formId: string, access: Access = {}): Promise<FormRow> {
    const form = await this.formForMember(userId, formId, access);
    return withoutPlan(form);
  }

  /** Applies only the fields present; null clears a nullable field; the list of addresses is replaced whole. */
  async updateForm(userId: string, formId: string, settings: FormSettings, access: Access = {}, sentBack: FormSentBack = {}): Promise<FormRow> {
    const form = await this.formForMember(userId, formId, access);
    requireUnchanged([
      { name: 'id', sent: sentBack.id, stored: form.id, why: `must be the form’s id (${form.id}), as in the path` },
      {
        name: 'workspaceId',
        sent: sentBack.workspaceId,
        stored: form.workspaceId,
        why: `must be the form’s workspace (${form.workspaceId}): a form cannot move to another workspace`,
      },
    ]);
    this.checkSettings(settings, await this.secrets.providers(formId), form.plan);
    const update: FormUpdate = {};
    // the settings whose columns change: what the audit log names
    const changed: string[] = [];
    for (const [key, value] of Object.entries(settings) as [keyof FormSettings, unknown][]) {
      if (value === undefined) continue;
      const columns: FormUpdate = {};
      if (key === 'notificationEmails' || key === 'allowedOrigins') columns[key] = toJson(value);
      else if (key === 'emailThreading') columns.emailThreading = value ? 1 : 0;
      else if (key === 'fileUploads') Object.assign(columns, fileUploadsColumns(value as FileUploadsInput | null));
      else if (BEHAVIOUR_KEYS.has(key)) Object.assign(columns, formBehaviourColumns({ [key]: value }));
      else if (JUDGE_KEYS.has(key)) Object.assign(columns, spamJudgeColumns({ [key]: value }));
      else (columns as Record<string, unknown>)[key] = value;
      if (columnsDiffer(form, columns)) changed.push(key);
      Object.assign(update, columns);
    }
    // saving the webhook setting (the same URL or another) turns a webhook that answered 410 Gone on again
    if (settings.webhookUrl !== undefined) Object.assign(update, { webhookDisabledAt: null, webhookDisabledReason: null });
    if (Object.keys(update).length === 0) return withoutPlan(form);
    update.updatedAt = Date.now();
    return this.database.transaction(async (trx) => {
      await trx.updateTable('forms').set(update).where('id', '=', formId).execute();
      // addresses new to the workspace are asked to confirm, in the same transaction as the change
      if (settings.notificationEmails) await this.recipients.requestConfirmations(trx, form.workspaceId, settings.notificationEmails, userId);
      if (changed.length > 0) {
        const target = formTarget({ id: form.id, name: settings.name ?? form.name });
        await this.audit.record({ action: 'form.updated', workspaceId: form.workspaceId, target, details: { changed } }, trx);
      }
      return trx.selectFrom('forms').selectAll().where('id', '=', formId).executeTakeFirstOrThrow();
    });
  }

  /** Pauses or resumes the form, for a member (the dashboard's button; the API's `paused`). */
  async setPaused(userId: string, formId: string, paused: boolean): Promise<void> {
    const form = await this.formForMember(userId, formId);
    await this.database.transaction(async (trx) => {
      await trx
        .updateTable('forms')
        .set({ paused: paused ? 1 : 0, updatedAt: Date.now() })
        .where('id', '=', formId)
        .execute();
      await this.audit.record({ action: paused ? 'form.paused' : 'form.resumed', workspaceId: form.workspaceId, target: formTarget(form) }, trx);
    });
  }

  /** Whether each form is open, paused, closed or full (forms a member was already shown): one query for the capped ones, none otherwise. */
  states(forms: readonly FormRow[]): Promise<Map<string, FormStateName>> {
    return formStates(this.database.db, forms);
  }

  /** The installation's plan rules, for the intake pipeline. */
  get plans(): PlanRules {
    return this.workspaces.plans;
  }

  /**
   * Deletes the form; its submissions and secrets go with it, and its files (released first: their
   * rows do not cascade). The submissions go first, FORM_DELETE_BATCH per transaction, giving the
   * event loop back between batches (issue 38): one cascading statement over a form of 100,000
   * held a SQLite server for seconds. Should the process stop midway, the form is still there, with
   * fewer submissions, and deleting it again finishes.
   */
  async deleteForm(userId: string, formId: string, access: Access = {}): Promise<void> {
    const form = await this.formForMember(userId, formId, access);
    const slice = new LoopSlice();
    for (;;) {
      await slice.yieldIfDue();
      const batch = await this.database.transaction(async (trx) => {
        const ids = (await trx.selectFrom('submissions').select('id').where('formId', '=', formId).limit(FORM_DELETE_BATCH).execute()).map((row) => row.id);
        if (ids.length === 0) return { found: 0, released: [] as string[] };
        const keys = await releaseFiles(trx, { submissionIds: ids }, Date.now());
        await trx.deleteFrom('submissions').where('id', 'in', ids).execute();
        return { found: ids.length, released: keys };
      });
      await removeReleasedFiles(this.database, this.files, batch.released);
      if (batch.found < FORM_DELETE_BATCH) break;
    }
    // what came in meanwhile goes with the form, as before
    const released = await this.database.transaction(async (trx) => {
      const keys = await releaseFiles(trx, { formId }, Date.now());
      await trx.deleteFrom('forms').where('id', '=', formId).execute();
      await this.audit.record({ action: 'form.deleted', workspaceId: form.workspaceId, target: formTarget(form) }, trx);
      return keys;
    });
    await removeReleasedFiles(this.database, this.files, released);
  }

  /** Stores a dashboard-only secret (captcha secret key or Slack token) for a form (admin command). */
  async setSecret(formId: string, provider: SecretProvider, secret: string): Promise<void> {
    await this.secrets.set(formId, provider, secret);
    const form = await this.database.db.selectFrom('forms').select(['id', 'name', 'workspaceId']).where('id', '=', formId).executeTakeFirst();
    if (form) await this.audit.record({ action: 'form.secret_set', workspaceId: form.workspaceId, target: formTarget(form), details: { provider } });
  }

  /** Which of the form's secrets are stored and when each was last set, for a member: never the values. */
  async listSecrets(userId: string, formId: string): Promise<SecretState[]> {
    await this.formForMember(userId, formId);
    return this.secrets.list(formId);
  }

  /** Stores (or replaces) a captcha secret key or the Slack token, for a member; trimmed, 1 to 1024 characters without spaces. */
  async putSecret(userId: string, formId: string, provider: StoredSecretProvider, secret: string): Promise<void> {
    const form = await this.formForMember(userId, formId);
    await this.secrets.put(formId, provider, secret);
    await this.audit.record({ action: 'form.secret_set', workspaceId: form.workspaceId, target: formTarget(form), details: { provider } });
  }

  /** Removes a stored secret, for a member; not the one the form uses (its captcha provider, or the Slack token while a channel is set). */
  async removeSecret(userId: string, formId: string, provider: StoredSecretProvider): Promise<void> {
    const form = await this.formForMember(userId, formId);
    await this.secrets.remove(form, provider);
    await this.audit.record({ action: 'form.secret_removed', workspaceId: form.workspaceId, target: formTarget(form), details: { provider } });
  }

  /** The webhook signing secret, for a member (made on first use). */
  async webhookSecretForMember(userId: string, formId: string): Promise<string> {
    await this.formForMember(userId, formId);
    return this.secrets.webhookSecret(formId);
  }

  /** The webhook signing secret shown to a member (the settings page's Show): recorded, as a secret shown is one someone may now hold. */
  async showWebhookSecret(userId: string, formId: string): Promise<string> {
    const form = await this.formForMember(userId, formId);
    const secret = await this.secrets.webhookSecret(formId);
    await this.audit.record({ action: 'form.webhook_secret_shown', workspaceId: form.workspaceId, target: formTarget(form) });
    return secret;
  }

  /** A new webhook signing secret replaces the old one, for a member; every webhook sent from now on is signed with it. */
  async rotateWebhookSecret(userId: string, formId: string): Promise<string> {
    const form = await this.formForMember(userId, formId);
    const secret = await this.secrets.rotateWebhookSecret(formId);
    await this.audit.record({ action: 'form.webhook_secret_rotated', workspaceId: form.workspaceId, target: formTarget(form) });
    return secret;
  }

  /** What deleting the form takes with it, for a member: its submissions by state, templates, secrets and deliveries not yet sent. */
  async deletionCounts(userId: string, formId: string): Promise<FormDeletionCounts> {
    await this.formForMember(userId, formId);
    const db = this.database.db;
    const [states, templates, secrets, pending] = await Promise.all([
      db
        .selectFrom('submissions')
        .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
        .where('formId', '=', formId)
        .groupBy('status')
        .execute(),
      db
        .selectFrom('templates')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('formId', '=', formId)
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('formSecrets')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('formId', '=', formId)
        .where('provider', '!=', 'WEBHOOK')
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('jobs')
        .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('submissions.formId', '=', formId)
        .where('jobs.status', '=', 'pending')
        .executeTakeFirstOrThrow(),
    ]);
    const byState = Object.fromEntries(states.map((s) => [s.status, Number(s.count)]));
    return {
      accepted: byState.accepted ?? 0,
      spam: byState.spam ?? 0,
      held: byState.held ?? 0,
      templates: Number(templates.count),
      secrets: Number(secrets.count),
      pendingDeliveries: Number(pending.count),
    };
  }

  /** What the submit pipeline needs of a form, with its workspace's plan and the captcha secret in use; null when there is no such form. */
  getIntakeForm(formId: string): Promise<IntakeForm | null> {
    return this.intake.get(formId);
  }

  /** The forms intake looks up: kept in memory where the database counts their changes (SQLite). */
  intakeForms(): { get(formId: string): Promise<IntakeForm | undefined> } {
    return this.intake.lookup();
  }

  /** The form's webhook signing secret, made on first use (webhook deliveries, the CLI); `not_found` when there is no such form. */
  webhookSecret(formId: string): Promise<string> {
    return this.secrets.webhookSecret(formId);
  }

  /** Counts submissions dropped by a filled honeypot (they are not stored). */
  countHoneypotDrop(formId: string): Promise<void> {
    return this.intake.countHoneypotDrop(formId);
  }

  /** The form with its plan if the account belongs to its workspace (`not_found` otherwise); through the API, only in an upgraded workspace. */
  async formForMember(userId: string, formId: string, access: Access = {}): Promise<FormWithPlan> {
    const form = await this.memberForm.executeTakeFirst(this.database.db, { formId, userId });
    if (!form) throw new ProblemError('not_found', `Form ${formId} was not found.`);
    if (access.api) requireUpgraded({ id: form.workspaceId, plan: form.plan }, this.workspaces.plans);
    return form;
  }

  /** The rules the schema cannot express: a public webhook address, a captcha only with its secret, origins as browsers write them. */
  private checkSettings(settings: FormSettings, providers: Set<string>, plan: Plan): void {
    const problems: string[] = [];
    settings.allowedOrigins?.forEach((origin, i) => {
      const problem = originProblem(origin);
      if (problem) problems.push(`allowedOrigins[${i}]: ${problem}`);
    });
    if (settings.webhookUrl) {
      const problem = this.outbound.urlProblem(settings.webhookUrl);
      if (problem) problems.push(`webhookUrl: ${problem}`);
    }
    const retention = retentionDaysProblem(settings.retentionDays);
    if (retention) problems.push(retention);
    problems.push(...fileUploadsProblems(settings.fileUploads, plan, this.workspaces.plans.isUpgraded(plan), this.workspaces.plans.team));
    problems.push(...formBehaviourProblems(settings));
    // ALTCHA is signed with Formgate's own key: nothing to store first
    if (settings.spamProtection && needsSecretKey(settings.spamProtection) && !providers.has(settings.spamProtection)) {
      problems.push(
        `spamProtection: no ${settings.spamProtection} secret key is stored for this form; store it first on the form's Settings page in the dashboard (Secret keys), or with formgate forms set-secret`,
      );
    }
    if (problems.length) throw validationError(problems, 'A form setting was rejected.');
  }
}

/** A form's name is 1 to 128 characters (2.3), as the API's schema counts them, without U+0000 (PostgreSQL cannot store it). */
/** Whether any of `columns` would change the stored form (JSON columns compared by their content). */
function columnsDiffer(form: FormRow, columns: FormUpdate): boolean {
  const stored = form as unknown as Record<string, unknown>;
  return Object.entries(columns).some(([column, value]) => {
    const before = column === 'notificationEmails' || column === 'allowedOrigins' ? fromJson(stored[column]) : stored[column];
    const after = column === 'notificationEmails' || column === 'allowedOrigins' ? fromJson(value) : value;
    return JSON.stringify(before ?? null) !== JSON.stringify(after ?? null);
  });
}

/** A form as the audit log names it. */
export function formTarget(form: Pick<FormRow, 'id' | 'name'>) {
  return { kind: 'form', id: form.id, name: form.name };
}

export function formNameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 1 || length > 128) return 'name: must be 1 to 128 characters';
  if (name.includes('\u0000')) return 'name: must not contain the character U+0000';
  return null;
}

/** A form's retention is a whole number of days within RETENTION_DAYS, or null (kept); the dashboard's input is checked here too. */
export function retentionDaysProblem(days: number | null | undefined): string | null {
  if (days === undefined || days === null) return null;
  if (!Number.isInteger(days) || days < RETENTION_DAYS.min || days > RETENTION_DAYS.max) {
    return `retentionDays: must be a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or null to keep submissions until they are deleted`;
  }
  return null;
}

/** listForms' query: every column of the form, as `forms.*` would give (PreparedQuery: named, not `*`). */
function memberFormsPage(after: boolean) {
  type Params = { workspaceId: string; userId: string; limit: number; createdAt: number; id: string };
  return new PreparedQuery<Params, FormWithPlan>((db, { workspaceId, userId, limit, createdAt, id }) =>
    newestAfter(
      db
        .selectFrom('forms')
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'forms.workspaceId')
        .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
        .select(LISTED_FORM_COLUMNS.map((column) => `forms.${column}` as const))
        .select('workspaces.plan')
        .where('forms.workspaceId', '=', workspaceId)
        .where('workspaceMembers.userId', '=', userId),
      after ? { createdAt, id } : null,
      'forms',
    ).limit(limit),
  );
}

function withoutPlan({ plan: _plan, ...form }: FormWithPlan): FormRow {
  return form;
}

/** The Form resource of 2.3. */
export function toFormResource(f: FormRow) {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    technology: f.technology,
    workspaceId: f.workspaceId,
    notificationEmails: notificationEmailsOf(f),
    emailThreading: f.emailThreading === 1,
    webhookUrl: f.webhookUrl,
    slackChannel: f.slackChannel,
    customHoneypot: f.customHoneypot,
    customSpamWords: f.customSpamWords,
    spamProtection: f.spamProtection,
    allowedOrigins: allowedOriginsOf(f),
    retentionDays: f.retentionDays,
    fileUploads: fileUploadsOf(f),
    ...formBehaviourOf(f),
    ...spamJudgesOf(f),
    createdAt: new Date(f.createdAt).toISOString(),
    updatedAt: new Date(f.updatedAt).toISOString(),
  };
}

/** A form's notification addresses as a list, from either dialect's JSON column. */
export function notificationEmailsOf(form: { notificationEmails: unknown }): string[] {
  return fromJson<string[]>(form.notificationEmails);
}

/** A form's allowed origins as a list, from either dialect's JSON column (empty: any page may post). */
export function allowedOriginsOf(form: { allowedOrigins: unknown }): string[] {
  return fromJson<string[] | null>(form.allowedOrigins) ?? [];
}
