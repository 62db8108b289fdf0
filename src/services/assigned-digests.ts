import { sql, type Transaction } from 'kysely';
import type { Config } from '../config/config.js';
import { fromJson, type Database } from '../db/database.js';
import type { DB } from '../db/schema/index.js';
import { fieldsOf, firstLineOf, whoOf } from '../domain/submission-summary.js';
import { DAY_MS } from '../domain/time.js';
import { EMAIL_KIND, type EmailPayload } from '../jobs/channels/email.js';
import { enqueueJob } from '../jobs/outbox.js';
import { automaticEmail } from '../mail/account-mail.js';
import { type AssignedDigestItem, assignedDigestMessage } from '../mail/assigned-digest-mail.js';
import { OPEN_CAP } from './triage.js';
import type { WorkspaceService } from './workspaces.js';

/** A digest names every open submission when they are at most this many; past it, the oldest and newest few. */
export const DIGEST_LISTED = 10;
/** How many of the oldest, and of the newest, a digest of more than DIGEST_LISTED names. */
export const DIGEST_ENDS = 5;
/** A run is due this much before a full day: runs come hourly, so a digest keeps its hour instead of drifting one later each day. */
const DUE_SLACK_MS = 30 * 60 * 1000;
/** Members looked at per run: the rest are due at the next. */
const MEMBERS_PER_RUN = 500;

/** What one run sent. */
export interface AssignedDigestRun {
  emails: number;
}

/**
 * The daily digest of what is open and assigned to a member (issue 41, item 6): for each member who
 * chose it (off by default, migration 0033), once a day, in each workspace where something open is
 * assigned to them, one email with how many, the oldest and newest few, and the inbox's Mine view.
 */
export class AssignedDigests {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly config: Pick<Config, 'publicUrl'>,
  ) {}

  /** Whether this member gets the digest of the workspace (`not_found` unless a member). */
  async settings(userId: string, workspaceId: string): Promise<{ mine: boolean }> {
    await this.workspaces.getForMember(userId, workspaceId);
    const member = await this.database.db
      .selectFrom('workspaceMembers')
      .select('assignedDigest')
      .where('workspaceId', '=', workspaceId)
      .where('userId', '=', userId)
      .executeTakeFirstOrThrow();
    return { mine: member.assignedDigest === 1 };
  }

  /** Saves whether this member gets it; their own choice only, as the spam digest's "Send the digest to me". */
  async save(userId: string, workspaceId: string, mine: boolean): Promise<{ mine: boolean }> {
    await this.workspaces.getForMember(userId, workspaceId);
    await this.database.db
      .updateTable('workspaceMembers')
      .set({ assignedDigest: mine ? 1 : 0 })
      .where('workspaceId', '=', workspaceId)
      .where('userId', '=', userId)
      .execute();
    return { mine };
  }

  /**
   * Sends the digests that are due: to each member who chose it, whose last one went a day ago (or
   * never), and who has open submissions assigned to them in the workspace. Each is claimed in its
   * own transaction that also enqueues the email (the outbox retries it) and stores when it went,
   * so instances running this at once never send one twice. Nothing open and theirs: no email.
   */
  async sendDue(now = Date.now()): Promise<AssignedDigestRun> {
    const run: AssignedDigestRun = { emails: 0 };
    for (const member of await this.dueMembers(now)) {
      if (await this.database.transaction((trx) => this.sendOne(trx, member.workspaceId, member.userId, now))) run.emails++;
    }
    return run;
  }

  /** Members with a digest due and something open assigned to them (a cheap first look; sendOne decides under the lock). */
  private async dueMembers(now: number): Promise<{ workspaceId: string; userId: string }[]> {
    return this.database.db
      .selectFrom('workspaceMembers')
      .select(['workspaceMembers.workspaceId', 'workspaceMembers.userId'])
      .where('workspaceMembers.assignedDigest', '=', 1)
      .where((eb) =>
        eb.or([eb('workspaceMembers.assignedDigestSentAt', 'is', null), eb('workspaceMembers.assignedDigestSentAt', '<=', now - DAY_MS + DUE_SLACK_MS)]),
      )
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('submissions')
            .select(sql.lit(1).as('one'))
            .whereRef('submissions.assigneeId', '=', 'workspaceMembers.userId')
            .whereRef('submissions.workspaceId', '=', 'workspaceMembers.workspaceId')
            .where('submissions.status', '=', sql.lit('accepted'))
            .where('submissions.doneAt', 'is', null),
        ),
      )
      .limit(MEMBERS_PER_RUN)
      .execute();
  }

  /** One member's digest of one workspace, in the caller's transaction; false when not due (sent by another instance, turned off, nothing open). */
  private async sendOne(trx: Transaction<DB>, workspaceId: string, userId: string, now: number): Promise<boolean> {
    const claim = trx
      .selectFrom('workspaceMembers')
      .innerJoin('users', 'users.id', 'workspaceMembers.userId')
      .innerJoin('workspaces', 'workspaces.id', 'workspaceMembers.workspaceId')
      .select(['workspaceMembers.assignedDigest', 'workspaceMembers.assignedDigestSentAt', 'users.email', 'users.disabledAt', 'workspaces.name'])
      .where('workspaceMembers.workspaceId', '=', workspaceId)
      .where('workspaceMembers.userId', '=', userId);
    // NOTE: SQLite's transactions take the write lock first (BEGIN IMMEDIATE): they already take turns
    const member = await (this.database.dialect === 'postgres' ? claim.forUpdate('workspaceMembers') : claim).executeTakeFirst();
    if (member?.assignedDigest !== 1 || member.disabledAt !== null) return false;
    const sentAt = member.assignedDigestSentAt === null ? null : Number(member.assignedDigestSentAt);
    if (sentAt !== null && sentAt > now - DAY_MS + DUE_SLACK_MS) return false;

    // read from submissions_assigned_open: a member with 100,000 done ones reads as few rows as one with none
    const open = trx
      .selectFrom('submissions')
      .where('submissions.assigneeId', '=', userId)
      .where('submissions.workspaceId', '=', workspaceId)
      .where('submissions.status', '=', sql.lit('accepted'))
      .where('submissions.doneAt', 'is', null);
    const listed = (direction: 'asc' | 'desc', limit: number) =>
      open
        .innerJoin('forms', 'forms.id', 'submissions.formId')
        .select(['submissions.id', 'submissions.data', 'submissions.createdAt', 'forms.name as formName'])
        .orderBy('submissions.createdAt', direction)
        .orderBy('submissions.id', direction)
        .limit(limit)
        .execute();
    const [counted, oldest, newest] = await Promise.all([
      trx
        .selectFrom(open.select('submissions.id').limit(OPEN_CAP).as('open'))
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow(),
      listed('asc', DIGEST_LISTED),
      listed('desc', DIGEST_ENDS),
    ]);
    const count = Number(counted.n);
    if (count === 0) return false;

    const base = this.config.publicUrl;
    const itemOf = (row: (typeof oldest)[number]): AssignedDigestItem => {
      const data = fieldsOf(fromJson(row.data));
      return { who: whoOf(data), formName: row.formName, firstLine: firstLineOf(data), createdAt: Number(row.createdAt), url: `${base}/submissions/${row.id}` };
    };
    const few = count <= DIGEST_LISTED;
    const message = assignedDigestMessage({
      workspaceName: member.name,
      count,
      capped: count >= OPEN_CAP,
      oldest: (few ? oldest : oldest.slice(0, DIGEST_ENDS)).map(itemOf),
      newest: few ? [] : newest.map(itemOf),
      mineUrl: `${base}/w/${workspaceId}/submissions?assignee=me`,
      settingsUrl: `${base}/w/${workspaceId}/settings#assigned-digest`,
    });
    await trx.updateTable('workspaceMembers').set({ assignedDigestSentAt: now }).where('workspaceId', '=', workspaceId).where('userId', '=', userId).execute();
    await enqueueJob(trx, { kind: EMAIL_KIND, payload: automaticEmail(member.email, message) satisfies EmailPayload });
    return true;
  }
}
