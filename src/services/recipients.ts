import type { Config } from '../config/config.js';
import { fromJson, type Database, type Queryable } from '../db/database.js';
import type { ConfirmationState, RecipientConfirmationRow } from '../db/schema/recipient-confirmation.js';
import { ProblemError } from '../errors.js';
import { enqueueAccountEmail } from './mail-outbox.js';
import { recipientConfirmationEmail } from '../mail/recipient-confirmation-mail.js';
import { hashSecret, newSecret } from './secrets.js';
import { memberAddresses, receivingAddresses, withheldReason } from './recipient-states.js';
import { lockWorkspace } from './seats.js';
import { normaliseEmail } from '../domain/email-address.js';
import { vouchedWorkspace } from './workspaces.js';

/** Confirmation links one workspace may have emailed in the last hour: the mail cannot be used to write to strangers in bulk. */
export const CONFIRMATIONS_PER_WORKSPACE_HOUR = 20;
/** Confirmation links one address may get in an hour from all workspaces of the instance together. */
export const CONFIRMATIONS_PER_ADDRESS_HOUR = 3;
/**
 * Confirmation links the whole instance sends in an hour for workspaces its admin has not vouched
 * for (domain/workspace-trust.ts): fresh open sign-ups cannot add up the per-workspace allowance
 * into thousands of emails from the operator's domain (issue 38, item 10). Counted in the database,
 * so every instance shares it.
 */
export const CONFIRMATIONS_PER_INSTANCE_HOUR = 100;
/** Which allowance kept a link from being sent: what the metric and the log say. */
export type WithheldBy = 'workspace' | 'address' | 'instance';
/** One address is sent a workspace's link at most once an hour (a resend waits that long). */
export const RESEND_AFTER_MS = 3_600_000;
const HOUR_MS = 3_600_000;
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * What the settings page shows beside an address: `member` (a member of the workspace: no
 * confirmation needed), `confirmed`, `pending` (`sentAt` null while no link went out yet), `declined`,
 * or `not_required` when the instance does not ask (FORMGATE_CONFIRM_RECIPIENTS=off).
 */
export interface RecipientStatus {
  state: 'member' | 'not_required' | ConfirmationState;
  sentAt: number | null;
}

/** What a confirmation link's page shows. */
export interface ConfirmationView {
  workspaceId: string;
  email: string;
  state: ConfirmationState;
  workspaceName: string;
  formNames: string[];
}

/**
 * Who a form's notifications may go to (issue 24, item 5). An address of a member of the workspace
 * receives them at once; any other address only once it confirmed, by a link emailed to it once per
 * workspace, and never after it declined.
 */
export class RecipientService {
  constructor(
    private readonly database: Database,
    // NOTE: read at each request: `serve` sets the public URL once it has bound its port.
    private readonly config: Pick<Config, 'publicUrl' | 'confirmRecipients'> & Partial<Pick<Config, 'signup'>>,
    /** Told of each link an allowance kept back (the metric, and a warning when the instance's is reached). */
    private readonly withheld: (by: WithheldBy, workspaceId: string) => void = () => undefined,
  ) {}

  get enabled(): boolean {
    return this.config.confirmRecipients;
  }

  /** The addresses among `emails` that may get the workspace's notifications now (for the notification channel). */
  receivingAddresses(db: Queryable, workspaceId: string, emails: readonly string[]): Promise<Set<string>> {
    return receivingAddresses(db, workspaceId, emails);
  }

  /** Why an address gets no notification: what the delivery log shows. */
  withheldReason(db: Queryable, workspaceId: string, address: string): Promise<string> {
    return withheldReason(db, workspaceId, address);
  }

  /**
   * Called in the transaction that lists addresses on a form (created, updated, or a member left):
   * each address neither a member's nor known to the workspace yet is recorded as pending and sent
   * its link, within the hourly allowances; past them it waits, unsent, for "Send link".
   */
  async requestConfirmations(trx: Queryable, workspaceId: string, addresses: readonly string[], requestedBy: string | null): Promise<void> {
    if (!this.enabled || addresses.length === 0) return;
    const emails = [...new Set(addresses.map(normaliseEmail))];
    const members = new Set(await memberAddresses(trx, workspaceId, emails));
    const known = new Set(
      (await trx.selectFrom('recipientConfirmations').select('email').where('workspaceId', '=', workspaceId).where('email', 'in', emails).execute()).map(
        (row) => row.email,
      ),
    );
    const asking = emails.filter((email) => !members.has(email) && !known.has(email));
    if (asking.length === 0) return;
    // one writer at a time per workspace: two saves at once cannot both pass the allowance
    await lockWorkspace(trx, workspaceId);
    const now = Date.now();
    for (const email of asking) {
      const inserted = await trx
        .insertInto('recipientConfirmations')
        .values({ workspaceId, email, state: 'pending', tokenHash: null, requestedBy, createdAt: now, updatedAt: now, lastSentAt: null, answeredAt: null })
        .onConflict((oc) => oc.columns(['workspaceId', 'email']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) continue;
      if ((await this.allowanceLeft(trx, workspaceId, email, now)) !== null) continue;
      await this.sendLink(trx, workspaceId, email, requestedBy, now);
    }
  }

  /** Each address's state for a workspace, keyed by its normalised form, for the settings page. */
  async statuses(workspaceId: string, addresses: readonly string[]): Promise<Map<string, RecipientStatus>> {
    const emails = [...new Set(addresses.map(normaliseEmail))];
    const result = new Map<string, RecipientStatus>();
    if (emails.length === 0) return result;
    if (!this.enabled) {
      for (const email of emails) result.set(email, { state: 'not_required', sentAt: null });
      return result;
    }
    const members = new Set(await memberAddresses(this.database.db, workspaceId, emails));
    const rows = await this.database.db
      .selectFrom('recipientConfirmations')
      .select(['email', 'state', 'lastSentAt'])
      .where('workspaceId', '=', workspaceId)
      .where('email', 'in', emails)
      .execute();
    const byEmail = new Map(rows.map((row) => [row.email, row]));
    for (const email of emails) {
      const row = byEmail.get(email);
      if (members.has(email)) result.set(email, { state: 'member', sentAt: null });
      else if (row) result.set(email, { state: row.state, sentAt: row.lastSentAt });
      // listed before it could be recorded (a member who left): not asked yet
      else result.set(email, { state: 'pending', sentAt: null });
    }
    return result;
  }

  /**
   * A member asks for the link to be sent (again) to an address of a form of theirs: at most once an
   * hour per address, within the workspace's and the address's hourly allowances, never to an address
   * that declined.
   */
  async resend(userId: string, formId: string, rawEmail: string): Promise<string> {
    const email = normaliseEmail(rawEmail);
    return this.database.transaction(async (trx) => {
      const form = await trx
        .selectFrom('forms')
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'forms.workspaceId')
        .select(['forms.workspaceId', 'forms.notificationEmails'])
        .where('forms.id', '=', formId)
        .where('workspaceMembers.userId', '=', userId)
        .executeTakeFirst();
      if (!form) throw new ProblemError('not_found', `Form ${formId} was not found.`);
      if (!fromJson<string[]>(form.notificationEmails).some((address) => normaliseEmail(address) === email)) {
        throw new ProblemError('not_found', `${email} is not one of this form's notification addresses.`);
      }
      if (!this.enabled) throw new ProblemError('conflict', 'This instance sends notifications without asking the addresses to confirm.');
      if ((await memberAddresses(trx, form.workspaceId, [email])).length > 0) {
        throw new ProblemError('conflict', `${email} belongs to a member of this workspace and needs no confirmation.`);
      }
      await lockWorkspace(trx, form.workspaceId);
      const now = Date.now();
      const row = await trx
        .selectFrom('recipientConfirmations')
        .selectAll()
        .where('workspaceId', '=', form.workspaceId)
        .where('email', '=', email)
        .executeTakeFirst();
      if (row?.state === 'confirmed') throw new ProblemError('conflict', `${email} has confirmed already.`);
      if (row?.state === 'declined') {
        throw new ProblemError('conflict', `${email} declined this workspace's notifications; only its owner can change that, with the link they were sent.`);
      }
      if (row?.lastSentAt != null && row.lastSentAt > now - RESEND_AFTER_MS) {
        const retryAfter = Math.ceil((row.lastSentAt + RESEND_AFTER_MS - now) / 1000);
        throw new ProblemError(
          'rate_limited',
          `A link went to ${email} less than an hour ago; it can be sent again in ${Math.ceil(retryAfter / 60)} minutes.`,
          {
            retryAfter,
          },
        );
      }
      const wait = await this.allowanceLeft(trx, form.workspaceId, email, now);
      if (wait !== null) throw wait;
      if (!row) {
        await trx
          .insertInto('recipientConfirmations')
          .values({
            workspaceId: form.workspaceId,
            email,
            state: 'pending',
            tokenHash: null,
            requestedBy: userId,
            createdAt: now,
            updatedAt: now,
            lastSentAt: null,
            answeredAt: null,
          })
          .execute();
      }
      await this.sendLink(trx, form.workspaceId, email, userId, now);
      return email;
    });
  }

  /** The confirmation behind a link's secret; null for a link that never was or was replaced by a newer one. */
  async open(secret: string, db: Queryable = this.database.db): Promise<(ConfirmationView & { row: RecipientConfirmationRow }) | null> {
    if (!SECRET_SHAPE.test(secret)) return null;
    const row = await db
      .selectFrom('recipientConfirmations')
      .innerJoin('workspaces', 'workspaces.id', 'recipientConfirmations.workspaceId')
      .selectAll('recipientConfirmations')
      .select('workspaces.name as workspaceName')
      .where('recipientConfirmations.tokenHash', '=', hashSecret(secret))
      .executeTakeFirst();
    if (!row) return null;
    const { workspaceName, ...confirmation } = row;
    const formNames = await formsListing(db, confirmation.workspaceId, confirmation.email);
    return { row: confirmation, workspaceId: confirmation.workspaceId, email: confirmation.email, state: confirmation.state, workspaceName, formNames };
  }

  /** The address behind the link says yes or no; it may change its mind with the same link. */
  async answer(secret: string, state: 'confirmed' | 'declined'): Promise<ConfirmationView> {
    const view = await this.open(secret);
    if (!view) throw new ProblemError('not_found', 'This link is not valid.');
    const now = Date.now();
    await this.database.db
      .updateTable('recipientConfirmations')
      .set({ state, answeredAt: now, updatedAt: now })
      .where('workspaceId', '=', view.row.workspaceId)
      .where('email', '=', view.email)
      .execute();
    return { ...view, state };
  }

  /**
   * A member left or was removed: their address stops counting as a member's. Where it is still on
   * the workspace's forms it is asked to confirm like any other (in the transaction of the leaving).
   */
  async memberLeft(trx: Queryable, workspaceId: string, email: string, requestedBy: string | null): Promise<void> {
    if (!this.enabled) return;
    const normalised = normaliseEmail(email);
    if ((await formsListing(trx, workspaceId, normalised)).length === 0) return;
    await this.requestConfirmations(trx, workspaceId, [normalised], requestedBy);
  }

  /** Null when a link may go to the address now; otherwise the `rate_limited` problem saying when. */
  private async allowanceLeft(trx: Queryable, workspaceId: string, email: string, now: number): Promise<ProblemError | null> {
    const byWorkspace = await sentWithinHour(trx, 'workspaceId', workspaceId, CONFIRMATIONS_PER_WORKSPACE_HOUR, now);
    if (byWorkspace !== null) {
      this.withheld('workspace', workspaceId);
      return tooMany(`A workspace can send at most ${CONFIRMATIONS_PER_WORKSPACE_HOUR} confirmation links an hour`, byWorkspace, now);
    }
    const byAddress = await sentWithinHour(trx, 'email', email, CONFIRMATIONS_PER_ADDRESS_HOUR, now);
    if (byAddress !== null) {
      this.withheld('address', workspaceId);
      return tooMany(`${email} was sent ${CONFIRMATIONS_PER_ADDRESS_HOUR} confirmation links by this instance in the last hour`, byAddress, now);
    }
    if (this.config.signup === 'open') {
      const byInstance = await sentWithinHour(trx, null, null, CONFIRMATIONS_PER_INSTANCE_HOUR, now);
      if (byInstance !== null && !(await vouchedWorkspace(trx, workspaceId))) {
        this.withheld('instance', workspaceId);
        return tooMany(
          `This instance sends at most ${CONFIRMATIONS_PER_INSTANCE_HOUR} confirmation links an hour for workspaces made through open sign-up, and has sent them (its admin can lift this for your workspace)`,
          byInstance,
          now,
        );
      }
    }
    return null;
  }

  /** A fresh link (an older one stops working), its email enqueued in the caller's transaction. */
  private async sendLink(trx: Queryable, workspaceId: string, email: string, requestedBy: string | null, now: number): Promise<void> {
    const secret = newSecret();
    await trx
      .updateTable('recipientConfirmations')
      .set({ tokenHash: hashSecret(secret), lastSentAt: now, updatedAt: now })
      .where('workspaceId', '=', workspaceId)
      .where('email', '=', email)
      .execute();
    const workspace = await trx.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirstOrThrow();
    const requester = requestedBy ? await trx.selectFrom('users').select('email').where('id', '=', requestedBy).executeTakeFirst() : undefined;
    const message = recipientConfirmationEmail({
      to: email,
      workspaceName: workspace.name,
      requestedBy: requester?.email ?? null,
      formNames: await formsListing(trx, workspaceId, email),
      url: `${this.config.publicUrl}/recipients/${secret}`,
    });
    await enqueueAccountEmail(trx, email, message);
  }
}

/** The names of the workspace's forms that list the address. */
async function formsListing(db: Queryable, workspaceId: string, email: string): Promise<string[]> {
  const forms = await db.selectFrom('forms').select(['name', 'notificationEmails']).where('workspaceId', '=', workspaceId).orderBy('createdAt').execute();
  return forms.filter((form) => fromJson<string[]>(form.notificationEmails).some((address) => normaliseEmail(address) === email)).map((form) => form.name);
}

function tooMany(what: string, oldest: number, now: number): ProblemError {
  const retryAfter = Math.max(1, Math.ceil((oldest + HOUR_MS - now) / 1000));
  return new ProblemError('rate_limited', `${what}; the next can go in ${Math.ceil(retryAfter / 60)} minutes.`, { retryAfter });
}

/**
 * When the oldest of the last `cap` links sent in the past hour to rows where `column` is `value`
 * (every row for a null column: the whole instance) went out, or null while fewer than `cap` went:
 * reads at most `cap` rows.
 * NOTE: the instance's count has no index of its own (no migration for it): it reads the rows sent
 * in the hour, asked only when a link is about to go out for a workspace made by open sign-up.
 */
async function sentWithinHour(trx: Queryable, column: 'workspaceId' | 'email' | null, value: string | null, cap: number, now: number): Promise<number | null> {
  let query = trx
    .selectFrom('recipientConfirmations')
    .select('lastSentAt')
    .where('lastSentAt', '>', now - HOUR_MS);
  if (column !== null) query = query.where(column, '=', value!);
  const rows = await query.orderBy('lastSentAt', 'desc').limit(cap).execute();
  return rows.length >= cap ? rows.at(-1)!.lastSentAt! : null;
}
