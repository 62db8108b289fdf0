import type { Database } from '../db/database.js';
import { KeptRows } from '../db/kept-rows.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { SpamProtection } from '../domain/captcha-providers.js';
import { SingleFlight } from '../db/single-flight.js';
import type { Plan } from '../domain/plans.js';
import type { FileUploadLimits } from '../domain/uploads.js';
import { uploadLimitsOf } from './form-uploads.js';
import { HOOKS_PER_WORKSPACE, type HookEvent, type HookTarget } from '../domain/hooks.js';
import { DESTINATIONS_PER_FORM } from '../domain/destinations.js';
import type { DestinationTarget } from '../jobs/destination-jobs.js';

const INTAKE_EVENTS: HookEvent[] = ['submission.created', 'submission.spam'];

/** What the submit pipeline needs of a form, read in one query with its plan and captcha secret. */
export interface IntakeForm {
  id: string;
  workspaceId: string;
  plan: Plan;
  customHoneypot: string | null;
  customSpamWords: string | null;
  spamProtection: SpamProtection | null;
  /** JSON array (text on SQLite): decides the deliveries. */
  notificationEmails: unknown;
  slackChannel: string | null;
  webhookUrl: string | null;
  /** The autoresponder template's `paused` (0/1), or null when there is none. */
  autoresponderPaused: number | null;
  /** JSON array (text on SQLite) of the chat channels (domain/chat-channels.ts), or null: one delivery each. */
  chatChannels: unknown;
  captchaSecret: string | null;
  /** JSON array (text on SQLite) of the origins that may post; empty: any. Read it with `allowedOriginsOf`. */
  allowedOrigins: unknown;
  /** Whether file parts are stored (`fileUploads` not null); when false they are dropped, the rest kept. */
  uploadsEnabled: boolean;
  /** The form's limits with the defaults applied (what applies while uploads are on). */
  uploadLimits: FileUploadLimits;
  /** The owner's redirect after success and thank-you wording (null: the defaults); the state (services/form-behaviour.ts). */
  redirectUrl: string | null;
  thanksTitle: string | null;
  thanksMessage: string | null;
  paused: number;
  closesAt: number | null;
  maxSubmissions: number | null;
  /** 1 when the instance admin made the workspace: with its plan, whether the admin vouches for it (domain/workspace-trust.ts). */
  ownerIsAdmin: number | null;
  /** The outside spam judges the form turned on (0/1, migration 0031), and the owner's Akismet key (null: Akismet is not asked). */
  spamAssassin: number;
  flagDisposableAddresses: number;
  flagSameMessage: number;
  akismetKey: string | null;
  /** The automation platforms' subscriptions to the form's new and spam submissions (services/hooks.ts): usually none. */
  hooks: HookTarget[];
  /** The form's destinations (Airtable, Notion, Google Sheets, newsletters): one job each per accepted submission; usually none. */
  destinations: DestinationTarget[];
}

/** The row as read: the upload columns as stored. */
type IntakeFormRow = Omit<IntakeForm, 'uploadsEnabled' | 'uploadLimits' | 'hooks' | 'destinations'> & { uploadsEnabled: number; uploadLimits: unknown };

/** The forms as the submit pipeline looks them up, on every submission: no membership, no API rules. */
export class IntakeForms {
  /** What the submit pipeline needs of a form: looked up on every submission, so built once. */
  private readonly intakeForm = new PreparedQuery<{ formId: string }, IntakeFormRow>((db, { formId }) =>
    db
      .selectFrom('forms')
      .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
      // NOTE: a workspace's owner and the admin flag never change, so the rows kept in memory need no notice of them
      .leftJoin('users', 'users.id', 'workspaces.ownerId')
      .leftJoin('formSecrets', (join) => join.onRef('formSecrets.formId', '=', 'forms.id').onRef('formSecrets.provider', '=', 'forms.spamProtection'))
      .leftJoin('templates', (join) => join.onRef('templates.formId', '=', 'forms.id').on('templates.kind', '=', 'autoresponder'))
      .leftJoin('formSecrets as akismet', (join) => join.onRef('akismet.formId', '=', 'forms.id').on('akismet.provider', '=', 'AKISMET'))
      .select([
        'forms.id',
        'forms.workspaceId',
        'forms.customHoneypot',
        'forms.customSpamWords',
        'forms.spamProtection',
        'forms.notificationEmails',
        'forms.slackChannel',
        'forms.webhookUrl',
        'forms.chatChannels',
        'forms.allowedOrigins',
        'forms.uploadsEnabled',
        'forms.uploadLimits',
        ...(['forms.redirectUrl', 'forms.thanksTitle', 'forms.thanksMessage', 'forms.paused', 'forms.closesAt', 'forms.maxSubmissions'] as const),
        ...(['forms.spamAssassin', 'forms.flagDisposableAddresses', 'forms.flagSameMessage'] as const),
        'workspaces.plan',
      ])
      .select([
        'formSecrets.secret as captchaSecret',
        'templates.paused as autoresponderPaused',
        'users.isAdmin as ownerIsAdmin',
        'akismet.secret as akismetKey',
      ])
      .where('forms.id', '=', formId),
  );

  /** The hooks intake enqueues for: read with the form, and kept with it (a change to `hooks` moves the intake count, migration 0038). */
  private readonly intakeHooks = new PreparedQuery<{ formId: string; workspaceId: string }, HookTarget>((db, { formId, workspaceId }) =>
    db
      .selectFrom('hooks')
      .select(['id', 'event', 'targetUrl'])
      .where('workspaceId', '=', workspaceId)
      .where((eb) => eb.or([eb('formId', 'is', null), eb('formId', '=', formId)]))
      .where('event', 'in', INTAKE_EVENTS)
      .limit(HOOKS_PER_WORKSPACE),
  );

  /** The destinations intake enqueues for: read with the form, and kept with it (adding or removing one moves the intake count, migration 0040). */
  private readonly intakeDestinations = new PreparedQuery<{ formId: string }, DestinationTarget>((db, { formId }) =>
    db
      .selectFrom('formDestinations')
      .select(['id', 'kind'])
      .where('formId', '=', formId)
      .orderBy('createdAt')
      .limit(DESTINATIONS_PER_FORM)
      .$castTo<DestinationTarget>(),
  );

  constructor(private readonly database: Database) {}

  /** The form with its workspace's plan and the captcha secret in use; null when there is no such form. */
  async get(formId: string): Promise<IntakeForm | null> {
    const row = await this.intakeForm.executeTakeFirst(this.database.db, { formId });
    if (!row) return null;
    const hooks = await this.intakeHooks.execute(this.database.db, { formId, workspaceId: row.workspaceId });
    const destinations = await this.intakeDestinations.execute(this.database.db, { formId });
    return { ...row, uploadsEnabled: row.uploadsEnabled === 1, uploadLimits: uploadLimitsOf(row), hooks, destinations };
  }

  /** Kept in memory while the database's count of the forms' changes stays put (db/kept-rows.ts); one lookup at a time per form where it counts none. */
  lookup(): { get(formId: string): Promise<IntakeForm | undefined> } {
    const lookup = async (formId: string) => (await this.get(formId)) ?? undefined;
    return this.database.countsChanges ? new KeptRows<IntakeForm>(() => this.database.changeCount('intake_forms'), lookup) : new SingleFlight(lookup);
  }

  /** Counts submissions dropped by a filled honeypot (they are not stored). */
  async countHoneypotDrop(formId: string): Promise<void> {
    await this.database.db
      .updateTable('forms')
      .set((eb) => ({ honeypotDrops: eb('honeypotDrops', '+', 1) }))
      .where('id', '=', formId)
      .execute();
  }
}
