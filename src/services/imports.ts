import type { Transaction } from 'kysely';
import { formBehaviourColumns } from './form-behaviour.js';
import { fromJson, toJson, type Database, type Dialect } from '../db/database.js';
import { addDayCounts } from '../db/day-counts.js';
import { insertRows } from '../db/insert-rows.js';
import { dayOf } from '../db/schema/daily-count.js';
import type { FormRow } from '../db/schema/form.js';
import type { DB } from '../db/schema/index.js';
import { normaliseEmail } from '../domain/email-address.js';
import { isPlan, isUpgraded, type Plan, PlanRules } from '../domain/plans.js';
import { uploadCeilings } from '../domain/uploads.js';
import { ProblemError } from '../errors.js';
import { completeLimits, type FileUploadsInput, fileUploadsColumns, fileUploadsOf } from './form-uploads.js';
import type { CheckedForm, CheckedSubmission, CheckedWorkspace } from './import-checks.js';
import { memberAddresses } from './recipient-states.js';
import { searchTextOf } from './search-text.js';
import { lockWorkspace } from './seats.js';
import type { UserService } from './users.js';

/**
 * What became of one imported item: written now, already here from an earlier run (same id, same
 * place), a conflict (the id is taken here by something else: never touched), or `full` (a form
 * past the workspace's plan's form count here).
 */
export type ImportOutcome = 'created' | 'existing' | 'conflict' | 'full';

export interface FormImported {
  outcome: ImportOutcome;
  /** For a form already here: the settings the source now holds otherwise (kept as they are here). */
  differs: string[];
}

export interface SubmissionsImported {
  created: number;
  existing: number;
  /** Ids taken here by a submission of another form. */
  conflicts: string[];
}

// An imported workspace's plan when the source names none this installation knows.
const FALLBACK_PLAN: Plan = 'BUNDLE_50000';
const SUBMISSION_COLUMNS = ['id', 'formId', 'workspaceId', 'data', 'status', 'searchText', 'emailControls', 'spamReasons', 'createdAt'] as const;

/**
 * `formgate import`: copies workspaces, forms and submissions read from another server's management
 * API into workspaces owned by one account here, keeping their ids (an HTML form keeps working by a
 * change of host) and their times. Nothing is delivered: no job is enqueued, no link is emailed.
 * Submissions are counted as intake counts them (the day counts, the allowance), so that
 * `formgate repair-counts` finds nothing to correct. An id taken here by another account, or in
 * another place, is a conflict and is never touched.
 */
export class ImportService {
  constructor(
    private readonly database: Database,
    private readonly users: UserService,
    private readonly confirmRecipients: boolean,
    private readonly plans: PlanRules = PlanRules.fixed('hosting'),
  ) {}

  /** The account the import writes for; it must exist here. */
  async owner(email: string): Promise<{ id: string; email: string }> {
    const user = await this.users.findByEmail(email);
    if (!user) {
      const address = normaliseEmail(email);
      throw new ProblemError('not_found', `No account has the e-mail address ${address} here; create it first (formgate users create --email ${address}).`);
    }
    return { id: user.id, email: user.email };
  }

  /** Creates the workspace with its id, owned by `ownerId`; one of theirs already is `existing`, anyone else's a conflict. */
  async importWorkspace(ownerId: string, workspace: CheckedWorkspace): Promise<{ outcome: ImportOutcome; plan: Plan }> {
    const plan = isPlan(workspace.plan) && isUpgraded(workspace.plan) ? workspace.plan : FALLBACK_PLAN;
    return this.database.transaction(async (trx) => {
      const inserted = await trx
        .insertInto('workspaces')
        .values({ id: workspace.id, name: workspace.name, plan, ownerId, submissionsUsed: 0, createdAt: workspace.createdAt, updatedAt: workspace.updatedAt })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
        const here = await trx.selectFrom('workspaces').select(['ownerId', 'plan']).where('id', '=', workspace.id).executeTakeFirstOrThrow();
        return { outcome: here.ownerId === ownerId ? 'existing' : 'conflict', plan: here.plan };
      }
      await trx.insertInto('workspaceMembers').values({ workspaceId: workspace.id, userId: ownerId, role: 'owner', createdAt: Date.now() }).execute();
      return { outcome: 'created', plan };
    });
  }

  /**
   * Creates the form with its id in the owner's workspace `workspaceId`, within the plan's form
   * count. Its CAPTCHA stays off: its secret key does not travel, and a provider without one would
   * refuse every submission. A form already here keeps its settings (they may have been changed
   * here since); what differs from the source's is answered, for the operator to decide.
   */
  async importForm(ownerId: string, workspaceId: string, form: CheckedForm): Promise<FormImported> {
    return this.database.transaction(async (trx) => {
      const workspace = await ownedWorkspace(trx, ownerId, workspaceId);
      const here = await trx.selectFrom('forms').selectAll().where('id', '=', form.id).executeTakeFirst();
      if (here) return here.workspaceId === workspaceId ? { outcome: 'existing', differs: differences(here, form) } : { outcome: 'conflict', differs: [] };
      const { count } = await trx
        .selectFrom('forms')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('workspaceId', '=', workspaceId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= this.plans.limits(workspace.plan).forms) return { outcome: 'full', differs: [] };
      const { fileUploads, ...settings } = form.settings;
      await trx
        .insertInto('forms')
        .values({
          ...settings,
          ...fileUploadsColumns(fileUploads && withinCeilings(fileUploads, workspace.plan)),
          ...formBehaviourColumns(form.behaviour),
          id: form.id,
          workspaceId,
          notificationEmails: toJson(settings.notificationEmails),
          allowedOrigins: toJson(settings.allowedOrigins),
          emailThreading: settings.emailThreading ? 1 : 0,
          spamProtection: null,
          createdAt: form.createdAt,
          updatedAt: form.updatedAt,
        })
        .execute();
      await this.recordRecipients(trx, workspaceId, settings.notificationEmails);
      return { outcome: 'created', differs: [] };
    });
  }

  /**
   * Writes one page of a form's submissions, as accepted ones with their ids and times, in one
   * transaction: the page is there whole or not at all, so an interrupted run loses nothing and the
   * next one goes on. Ids already here under this form are skipped; under another, a conflict.
   */
  async importSubmissions(ownerId: string, formId: string, page: readonly CheckedSubmission[]): Promise<SubmissionsImported> {
    const byId = new Map(page.map((submission) => [submission.id, submission]));
    const result: SubmissionsImported = { created: 0, existing: 0, conflicts: [] };
    if (byId.size === 0) return result;
    return this.database.transaction(async (trx) => {
      const form = await trx
        .selectFrom('forms')
        .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
        .select('forms.workspaceId')
        .where('forms.id', '=', formId)
        .where('workspaces.ownerId', '=', ownerId)
        .executeTakeFirst();
      if (!form) throw new ProblemError('not_found', `Form ${formId} was not found in a workspace of the importing account.`);
      // NOTE: the workspace's row first, then the day counts, in the order intake's writer takes them
      await lockWorkspace(trx, form.workspaceId);
      const found = await trx
        .selectFrom('submissions')
        .select(['id', 'formId'])
        .where('id', 'in', [...byId.keys()])
        .execute();
      for (const { id, formId: foundForm } of found) {
        if (foundForm === formId) result.existing++;
        else result.conflicts.push(id);
        byId.delete(id);
      }
      const fresh = [...byId.values()];
      if (fresh.length === 0) return result;
      const rows = fresh.map((submission) => ({
        id: submission.id,
        formId,
        workspaceId: form.workspaceId,
        data: toJson(submission.data),
        status: 'accepted' as const,
        searchText: searchTextOf(submission.data),
        emailControls: null,
        spamReasons: null,
        createdAt: submission.createdAt,
      }));
      await insertRows(trx, 'submissions', SUBMISSION_COLUMNS, rows);
      // counted as intake counts an accepted submission: against the allowance, and on its day
      await trx
        .updateTable('workspaces')
        .set((eb) => ({ submissionsUsed: eb('submissionsUsed', '+', fresh.length) }))
        .where('id', '=', form.workspaceId)
        .execute();
      await countDays(trx, this.database.dialect, formId, form.workspaceId, fresh);
      result.created = fresh.length;
      return result;
    });
  }

  /**
   * The notification addresses that will need a confirmation here (not members, none recorded):
   * recorded as pending with no link sent, since an import emails nobody; the form's Settings page
   * sends the links ("Send link").
   */
  private async recordRecipients(trx: Transaction<DB>, workspaceId: string, addresses: readonly string[]): Promise<void> {
    if (!this.confirmRecipients || addresses.length === 0) return;
    const emails = [...new Set(addresses.map(normaliseEmail))];
    const members = new Set(await memberAddresses(trx, workspaceId, emails));
    const now = Date.now();
    for (const email of emails) {
      if (members.has(email)) continue;
      await trx
        .insertInto('recipientConfirmations')
        .values({
          workspaceId,
          email,
          state: 'pending',
          tokenHash: null,
          requestedBy: null,
          createdAt: now,
          updatedAt: now,
          lastSentAt: null,
          answeredAt: null,
        })
        .onConflict((oc) => oc.columns(['workspaceId', 'email']).doNothing())
        .execute();
    }
  }

  /** Addresses of a form here still waiting for a confirmation (none when the instance does not ask). */
  async unconfirmedRecipients(workspaceId: string, addresses: readonly string[]): Promise<string[]> {
    if (!this.confirmRecipients || addresses.length === 0) return [];
    const emails = [...new Set(addresses.map(normaliseEmail))];
    const members = new Set(await memberAddresses(this.database.db, workspaceId, emails));
    const confirmed = await this.database.db
      .selectFrom('recipientConfirmations')
      .select('email')
      .where('workspaceId', '=', workspaceId)
      .where('email', 'in', emails)
      .where('state', '=', 'confirmed')
      .execute();
    const receiving = new Set([...members, ...confirmed.map((row) => row.email)]);
    return emails.filter((email) => !receiving.has(email));
  }

  /** What is left of the workspace's allowance here (imported submissions count, as at the source). */
  async allowanceLeft(workspaceId: string): Promise<number> {
    const workspace = await this.database.db
      .selectFrom('workspaces')
      .select(['plan', 'submissionsUsed'])
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return this.plans.submissionsLeft(workspace.plan, Number(workspace.submissionsUsed));
  }

  /** The providers whose secrets the form has here (a CAPTCHA key, SLACK): what is left to store. */
  async storedSecrets(formId: string): Promise<Set<string>> {
    const rows = await this.database.db.selectFrom('formSecrets').select('provider').where('formId', '=', formId).execute();
    return new Set(rows.map((row) => row.provider));
  }
}

async function ownedWorkspace(trx: Transaction<DB>, ownerId: string, workspaceId: string): Promise<{ plan: Plan }> {
  const workspace = await trx.selectFrom('workspaces').select('plan').where('id', '=', workspaceId).where('ownerId', '=', ownerId).executeTakeFirst();
  if (!workspace) throw new ProblemError('not_found', `Workspace ${workspaceId} was not found among the importing account's own.`);
  return workspace;
}

/** The settings of a form here that the source now holds otherwise (its CAPTCHA: only once chosen here). */
function differences(here: Record<string, unknown>, form: CheckedForm): string[] {
  const source: Record<string, unknown> = { ...form.settings, emailThreading: form.settings.emailThreading ? 1 : 0 };
  // a source that does not show a setting has not changed it
  if (!form.showsOrigins) delete source.allowedOrigins;
  if (!form.showsRetention) delete source.retentionDays;
  if (form.showsFileUploads) source.fileUploads = form.settings.fileUploads && completeLimits(form.settings.fileUploads);
  else delete source.fileUploads;
  const differs = Object.keys(source).filter((key) => {
    const mine =
      key === 'notificationEmails' || key === 'allowedOrigins'
        ? fromJson(here[key])
        : key === 'fileUploads'
          ? fileUploadsOf(here as Pick<FormRow, 'uploadsEnabled' | 'uploadLimits'>)
          : here[key];
    return JSON.stringify(mine) !== JSON.stringify(source[key]);
  });
  if (here.spamProtection !== null && here.spamProtection !== form.spamProtection) differs.push('spamProtection');
  return differs;
}

/**
 * Adds the page to its form's counts of each day it spans (the charts, the month, the last
 * submission): one statement, days in order, as intake's writer adds a batch.
 */
async function countDays(trx: Transaction<DB>, dialect: Dialect, formId: string, workspaceId: string, page: readonly CheckedSubmission[]): Promise<void> {
  const byDay = new Map<number, { formId: string; workspaceId: string; day: number; accepted: number; spam: number; lastAt: number }>();
  for (const { createdAt } of page) {
    const day = dayOf(createdAt);
    const count = byDay.get(day);
    if (count) {
      count.accepted++;
      count.lastAt = Math.max(count.lastAt, createdAt);
    } else byDay.set(day, { formId, workspaceId, day, accepted: 1, spam: 0, lastAt: createdAt });
  }
  await addDayCounts(trx, dialect, [...byDay.values()]);
}

/** The source's limits, capped to what the importing workspace's plan allows (a bigger plan there than here). */
function withinCeilings(limits: FileUploadsInput, plan: Plan): FileUploadsInput {
  // the defaults stay "the defaults": every plan allows them
  if (Object.keys(limits).length === 0) return limits;
  const ceilings = uploadCeilings(plan);
  const complete = completeLimits(limits);
  const maxTotalSize = Math.min(complete.maxTotalSize, ceilings.maxTotalSize);
  return { ...complete, maxTotalSize, maxFileSize: Math.min(complete.maxFileSize, ceilings.maxFileSize, maxTotalSize) };
}
