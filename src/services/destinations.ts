import { fromJson, toJson, type Database } from '../db/database.js';
import { DeliveryError, deliveryErrorForMembers } from '../domain/delivery-error.js';
import {
  checkDestination,
  DESTINATION_NAMES,
  DESTINATIONS_PER_FORM,
  destinationSettingsOf,
  destinationTarget,
  type DestinationInput,
  type DestinationKind,
  type DestinationSettings,
  isDestinationKind,
  type MappingEntry,
  NEWSLETTER_KINDS,
} from '../domain/destinations.js';
import type { InstanceUsage } from '../domain/plans.js';
import { submitterAddress } from '../domain/submitter-address.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { fieldCells, type DestinationApiOptions, sendToDestination } from '../jobs/channels/destination-apis.js';
import { isPublicAddress } from '../net/public-address.js';
import type { TestOutcome } from './chat-channels.js';
import { type FormService, formTarget } from './forms.js';
import type { AuditLog } from './audit-log.js';
import { exampleData } from './webhook-bodies.js';

/** A destination as its form's members see it: never its secret. */
export interface DestinationView {
  id: string;
  kind: DestinationKind;
  service: string;
  /** What it sends to, in a few words ("base app…, table “Leads”"). */
  target: string;
  settings: DestinationSettings;
  lastTriedAt: number | null;
  lastStatus: 'ok' | 'failed' | null;
  /** The last failure as members read it (domain/delivery-error.ts). */
  lastError: string | null;
  createdAt: number;
}

/** The form's fields seen in its newest accepted submissions: what a mapping lists. */
const FIELD_SAMPLE = 50;
/** A name in a service (a column, a property, an attribute) is at most this long. */
const MAPPED_NAME_MAX = 200;

/**
 * A form's destinations (`form_destinations`; domain/destinations.ts), for its members: listed
 * without their secrets, added, changed, their field mapping edited, tried, removed. Each accepted
 * submission gets one delivery per destination (jobs/destination-jobs.ts).
 */
export class DestinationService {
  constructor(
    private readonly database: Database,
    private readonly forms: FormService,
    private readonly options: DestinationApiOptions,
    private readonly audit: AuditLog,
    private readonly usage: () => InstanceUsage = () => 'hosting',
  ) {}

  private view(row: {
    id: string;
    kind: string;
    settings: unknown;
    lastTriedAt: number | null;
    lastStatus: 'ok' | 'failed' | null;
    lastError: string | null;
    createdAt: number;
  }): DestinationView | null {
    if (!isDestinationKind(row.kind)) return null;
    const settings = destinationSettingsOf(row.settings);
    return {
      id: row.id,
      kind: row.kind,
      service: DESTINATION_NAMES[row.kind],
      target: destinationTarget(row.kind, settings),
      settings,
      lastTriedAt: row.lastTriedAt === null ? null : Number(row.lastTriedAt),
      lastStatus: row.lastStatus,
      lastError: deliveryErrorForMembers(row.lastError, this.usage(), isPublicAddress),
      createdAt: Number(row.createdAt),
    };
  }

  private rows(formId: string) {
    return this.database.db
      .selectFrom('formDestinations')
      .select(['id', 'kind', 'settings', 'lastTriedAt', 'lastStatus', 'lastError', 'createdAt'])
      .where('formId', '=', formId)
      .orderBy('createdAt')
      .orderBy('id');
  }

  /** The form's destinations as a member sees them (`not_found` for anyone else). */
  async listForMember(userId: string, formId: string): Promise<DestinationView[]> {
    await this.forms.formForMember(userId, formId);
    return (await this.rows(formId).execute()).flatMap((row) => this.view(row) ?? []);
  }

  /** One destination of the form (`not_found` when the account is no member, or the form has no such destination). */
  async getForMember(userId: string, formId: string, destinationId: string): Promise<DestinationView> {
    await this.forms.formForMember(userId, formId);
    const row = await this.rows(formId).where('id', '=', destinationId).executeTakeFirst();
    const view = row ? this.view(row) : null;
    if (!view) throw new ProblemError('not_found', `Destination ${destinationId} was not found.`);
    return view;
  }

  /**
   * Adds a destination of `kind` to the form, its secret required; a bad value is a
   * `validation_error` naming the field, and nothing is stored. At most DESTINATIONS_PER_FORM.
   */
  async addForMember(userId: string, formId: string, kind: DestinationKind, input: DestinationInput): Promise<string> {
    const form = await this.forms.formForMember(userId, formId);
    const checked = checkDestination(kind, input, false, (url) => this.options.outbound.urlProblem(url));
    if (!checked.ok) throw refused(kind, checked.problems, 'added');
    return this.database.transaction(async (trx) => {
      // NOTE: the form's row locked on PostgreSQL, so two adds at once both count (SQLite runs one write transaction at a time)
      const lock = trx.selectFrom('forms').select('id').where('id', '=', formId);
      await (this.database.dialect === 'postgres' ? lock.forUpdate() : lock).executeTakeFirst();
      const count = await trx
        .selectFrom('formDestinations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('formId', '=', formId)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= DESTINATIONS_PER_FORM)
        throw validationError(
          [`kind: A form has at most ${DESTINATIONS_PER_FORM} destinations: remove one first.`],
          `The ${DESTINATION_NAMES[kind]} destination was not added.`,
        );
      const id = newId();
      const now = Date.now();
      await trx
        .insertInto('formDestinations')
        .values({ id, formId, kind, settings: toJson(checked.settings), secret: checked.secret!, createdAt: now, updatedAt: now })
        .execute();
      await this.audit.record(
        { action: 'form.destination_added', workspaceId: form.workspaceId, target: formTarget(form), details: { destinationId: id, kind } },
        trx,
      );
      return id;
    });
  }

  /** Changes a destination's settings; a blank secret keeps the stored one. The mapping is kept. */
  async updateForMember(userId: string, formId: string, destinationId: string, input: DestinationInput): Promise<void> {
    const current = await this.getForMember(userId, formId, destinationId);
    const form = await this.forms.formForMember(userId, formId);
    const checked = checkDestination(current.kind, input, true, (url) => this.options.outbound.urlProblem(url));
    if (!checked.ok) throw refused(current.kind, checked.problems, 'saved');
    const settings: DestinationSettings = { ...checked.settings };
    if (current.settings.mapping) settings.mapping = current.settings.mapping;
    // a new key names its own service account; without one, the stored key's address stays
    if (current.kind === 'google-sheets' && !checked.secret && current.settings.clientEmail) settings.clientEmail = current.settings.clientEmail;
    await this.database.transaction(async (trx) => {
      await trx
        .updateTable('formDestinations')
        .set({ settings: toJson(settings), ...(checked.secret ? { secret: checked.secret } : {}), updatedAt: Date.now() })
        .where('id', '=', destinationId)
        .where('formId', '=', formId)
        .execute();
      const details = { destinationId, kind: current.kind, secretReplaced: Boolean(checked.secret) };
      await this.audit.record({ action: 'form.destination_updated', workspaceId: form.workspaceId, target: formTarget(form), details }, trx);
    });
  }

  /**
   * Stores the field mapping: each form field's name in the service (empty: not sent). A name longer
   * than MAPPED_NAME_MAX, or two fields sent under one name, is a `validation_error` naming the row.
   */
  async setMappingForMember(userId: string, formId: string, destinationId: string, mapping: MappingEntry[]): Promise<void> {
    const current = await this.getForMember(userId, formId, destinationId);
    const form = await this.forms.formForMember(userId, formId);
    const problems: string[] = [];
    const seen = new Map<string, string>();
    const cleaned = mapping.map(({ field, to }, i) => {
      const name = to.trim();
      if (name.length > MAPPED_NAME_MAX) problems.push(`mapping[${i}]: A name is at most ${MAPPED_NAME_MAX} characters.`);
      else if ([...name].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127))
        problems.push(`mapping[${i}]: A name has no line breaks or control characters.`);
      else if (name && seen.has(name)) problems.push(`mapping[${i}]: “${seen.get(name)}” is already sent as “${name}”: give each field its own name.`);
      if (name) seen.set(name, field);
      return { field: field.slice(0, 500), to: name };
    });
    if (problems.length > 0) throw validationError(problems, 'The field mapping was not saved.');
    await this.database.transaction(async (trx) => {
      await trx
        .updateTable('formDestinations')
        .set({ settings: toJson({ ...current.settings, mapping: cleaned.slice(0, 500) }), updatedAt: Date.now() })
        .where('id', '=', destinationId)
        .where('formId', '=', formId)
        .execute();
      const details = { destinationId, kind: current.kind, mapping: true };
      await this.audit.record({ action: 'form.destination_updated', workspaceId: form.workspaceId, target: formTarget(form), details }, trx);
    });
  }

  /** Removes a destination; false when the form had no such one. Deliveries still waiting for it then send nothing. */
  async removeForMember(userId: string, formId: string, destinationId: string): Promise<boolean> {
    const form = await this.forms.formForMember(userId, formId);
    return this.database.transaction(async (trx) => {
      const removed = await trx
        .deleteFrom('formDestinations')
        .where('id', '=', destinationId)
        .where('formId', '=', formId)
        .returning('kind')
        .executeTakeFirst();
      if (!removed) return false;
      const details = { destinationId, kind: removed.kind };
      await this.audit.record({ action: 'form.destination_removed', workspaceId: form.workspaceId, target: formTarget(form), details }, trx);
      return true;
    });
  }

  /**
   * Tries the destination now, through the code that delivers: a record of the form's latest
   * submission (or the sample) for Airtable, Notion and Google Sheets; for a newsletter, the list is
   * read with the stored key and nobody is signed up.
   */
  async sendTest(userId: string, formId: string, destinationId: string): Promise<TestOutcome & { response?: string }> {
    await this.forms.formForMember(userId, formId);
    const row = await this.database.db
      .selectFrom('formDestinations')
      .select(['id', 'kind', 'settings', 'secret'])
      .where('id', '=', destinationId)
      .where('formId', '=', formId)
      .executeTakeFirst();
    if (!row || !isDestinationKind(row.kind)) return { sent: false, error: 'the form has no such destination', untried: true };
    const { data } = await exampleData(this.database, formId);
    const destination = { id: row.id, kind: row.kind, settings: destinationSettingsOf(row.settings), secret: row.secret };
    const newsletter = NEWSLETTER_KINDS.includes(row.kind);
    try {
      const receipt = await sendToDestination(
        destination,
        { data, email: submitterAddress({ data, controls: {} }) },
        this.options,
        newsletter ? 'check-list' : 'deliver',
      );
      return { sent: true, statusCode: receipt.statusCode ?? undefined, ...(receipt.response ? { response: receipt.response } : {}) };
    } catch (err) {
      if (err instanceof DeliveryError) return { sent: false, error: deliveryErrorForMembers(err.message, this.usage(), isPublicAddress)! };
      throw err;
    }
  }

  /** The field names seen in the form's newest accepted submissions, in the order first seen: the rows of a mapping. */
  async knownFields(userId: string, formId: string): Promise<string[]> {
    await this.forms.formForMember(userId, formId);
    const rows = await this.database.db
      .selectFrom('submissions')
      .select('data')
      .where('formId', '=', formId)
      .where('status', '=', 'accepted')
      .orderBy('createdAt', 'desc')
      .limit(FIELD_SAMPLE)
      .execute();
    const names = new Set<string>();
    for (const row of rows.reverse()) for (const name of fieldCells(fromJson<Record<string, unknown>>(row.data)).keys()) names.add(name);
    return [...names].slice(0, 200);
  }
}

function refused(kind: DestinationKind, problems: Record<string, string>, what: 'added' | 'saved'): ProblemError {
  return validationError(
    Object.entries(problems).map(([field, message]) => `${field}: ${message}`),
    `The ${DESTINATION_NAMES[kind]} destination was not ${what}.`,
  );
}
