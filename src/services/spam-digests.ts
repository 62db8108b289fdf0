import type { Transaction } from 'kysely';
import type { Config } from '../config/config.js';
import { fromJson, type Database } from '../db/database.js';
import type { DB } from '../db/schema/index.js';
import { DEFAULT_DIGEST_FREQUENCY, DIGEST_PERIOD_MS, type DigestFrequency, isDigestFrequency } from '../domain/spam-digest.js';
import { fieldsOf, firstLineOf, senderOf } from '../domain/submission-summary.js';
import { submitterAddress } from '../domain/submitter-address.js';
import { validationError } from '../errors.js';
import { EMAIL_KIND, type EmailPayload } from '../jobs/channels/email.js';
import { storedEmailControls } from '../jobs/channels/channel.js';
import { enqueueJobs } from '../jobs/outbox.js';
import { automaticEmail } from '../mail/account-mail.js';
import { type DigestItem, spamDigestMessage } from '../mail/spam-digest-mail.js';
import { NOT_SPAM_LINK_DAYS, type NotSpamLinks } from './not-spam-links.js';
import { OWNER_MARK, reasonsOf } from './quarantine.js';
import { type WorkspaceService, workspaceTarget } from './workspaces.js';
import type { AuditLog } from './audit-log.js';

/** A digest lists at most this many submissions; the rest are "and N more" in the spam folder. */
export const DIGEST_ITEMS = 50;
/**
 * NOTE: a digest lists spam created up to this long before its run: a submission is stored with the
 * time it arrived, and one still being written (a slow upload, a transaction not yet committed) must
 * not land behind the mark; it is in the next digest instead.
 */
export const DIGEST_SETTLE_MS = 10 * 60 * 1000;
/** A run is due this much before its full period: runs come hourly, so a daily digest keeps its hour instead of drifting one later each day. */
const DUE_SLACK_MS = 30 * 60 * 1000;
/** Workspaces looked at per run: the rest are due at the next. */
const WORKSPACES_PER_RUN = 500;

// the reasons "Mark as spam" stores begin so: the team's own marks are not news to it
const OWNER_MARKED = `${JSON.stringify([OWNER_MARK]).slice(0, -2)}%`;

/** A workspace's digest as its settings show it to one member. */
export interface DigestSettings {
  frequency: DigestFrequency;
  /** Whether this member receives it. */
  mine: boolean;
}

/** What one run sent. */
export interface DigestRun {
  workspaces: number;
  emails: number;
  /** Submissions listed, counted once per workspace. */
  listed: number;
}

/**
 * The spam digest (issue 40, item 3): per workspace, daily by default, an email to each member who
 * wants it listing the spam quarantined since the last one, each with a signed "Not spam" link.
 */
export class SpamDigests {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly links: NotSpamLinks,
    private readonly config: Pick<Config, 'publicUrl'>,
    private readonly audit: AuditLog,
  ) {}

  /** The workspace's digest and whether this member gets it (`not_found` unless a member). */
  async settings(userId: string, workspaceId: string): Promise<DigestSettings> {
    await this.workspaces.getForMember(userId, workspaceId);
    const [digest, member] = await Promise.all([
      this.database.db.selectFrom('spamDigests').select('frequency').where('workspaceId', '=', workspaceId).executeTakeFirst(),
      this.database.db
        .selectFrom('workspaceMembers')
        .select('spamDigest')
        .where('workspaceId', '=', workspaceId)
        .where('userId', '=', userId)
        .executeTakeFirstOrThrow(),
    ]);
    return { frequency: digest?.frequency ?? DEFAULT_DIGEST_FREQUENCY, mine: member.spamDigest === 1 };
  }

  /**
   * Saves how often the workspace's digest goes out (any member may, as any member may rename it)
   * and whether this member receives it. `validation_error` for a frequency not offered; nothing changes then.
   */
  async save(userId: string, workspaceId: string, frequency: unknown, mine: boolean): Promise<DigestSettings> {
    const workspace = await this.workspaces.getForMember(userId, workspaceId);
    if (!isDigestFrequency(frequency)) throw validationError([`frequency: must be one of daily, weekly or off`]);
    await this.database.transaction(async (trx) => {
      await trx
        .insertInto('spamDigests')
        .values({ workspaceId, frequency, sentAt: null, listedThrough: null })
        .onConflict((oc) => oc.column('workspaceId').doUpdateSet({ frequency }))
        .execute();
      await trx
        .updateTable('workspaceMembers')
        .set({ spamDigest: mine ? 1 : 0 })
        .where('workspaceId', '=', workspaceId)
        .where('userId', '=', userId)
        .execute();
      await this.audit.record(
        { action: 'workspace.settings_changed', workspaceId, target: workspaceTarget(workspace), details: { spamDigest: frequency } },
        trx,
      );
    });
    return { frequency, mine };
  }

  /**
   * Sends the digests that are due: for each workspace whose period has passed since its last
   * digest and that has spam since it, one transaction claims the workspace's digest, lists its
   * spam up to DIGEST_SETTLE_MS ago, moves its mark there and enqueues one email per member who
   * wants it (the outbox retries them). Instances running this at once take turns on each
   * workspace's row: the second finds it no longer due. An empty digest sends nothing.
   */
  async sendDue(now = Date.now()): Promise<DigestRun> {
    const run: DigestRun = { workspaces: 0, emails: 0, listed: 0 };
    for (const workspaceId of await this.dueWorkspaces(now)) {
      const sent = await this.database.transaction((trx) => this.sendOne(trx, workspaceId, now));
      if (sent === null) continue;
      run.workspaces++;
      run.emails += sent.emails;
      run.listed += sent.listed;
    }
    return run;
  }

  /** Workspaces with a digest due and spam past their mark (a cheap first look; sendOne decides under the lock). */
  private async dueWorkspaces(now: number): Promise<string[]> {
    const rows = await this.database.db
      .selectFrom('submissions')
      .leftJoin('spamDigests', 'spamDigests.workspaceId', 'submissions.workspaceId')
      .select('submissions.workspaceId')
      .where('submissions.status', '=', 'spam')
      .where('submissions.createdAt', '<=', now - DIGEST_SETTLE_MS)
      .where((eb) => eb.or([eb('spamDigests.listedThrough', 'is', null), eb('submissions.createdAt', '>', eb.ref('spamDigests.listedThrough'))]))
      .where((eb) =>
        eb.or([
          eb('spamDigests.workspaceId', 'is', null),
          eb('spamDigests.sentAt', 'is', null),
          eb.and([eb('spamDigests.frequency', '=', 'daily'), eb('spamDigests.sentAt', '<=', now - DIGEST_PERIOD_MS.daily + DUE_SLACK_MS)]),
          eb.and([eb('spamDigests.frequency', '=', 'weekly'), eb('spamDigests.sentAt', '<=', now - DIGEST_PERIOD_MS.weekly + DUE_SLACK_MS)]),
        ]),
      )
      .where((eb) => eb.or([eb('spamDigests.frequency', 'is', null), eb('spamDigests.frequency', '<>', 'off')]))
      .groupBy('submissions.workspaceId')
      .limit(WORKSPACES_PER_RUN)
      .execute();
    return rows.map((row) => row.workspaceId);
  }

  /** One workspace's digest, in the caller's transaction; null when it is not due (another instance sent it, or it was turned off). */
  private async sendOne(trx: Transaction<DB>, workspaceId: string, now: number): Promise<{ emails: number; listed: number } | null> {
    await trx
      .insertInto('spamDigests')
      .values({ workspaceId, sentAt: null, listedThrough: null })
      .onConflict((oc) => oc.column('workspaceId').doNothing())
      .execute();
    const claim = trx.selectFrom('spamDigests').select(['frequency', 'sentAt', 'listedThrough']).where('workspaceId', '=', workspaceId);
    // NOTE: SQLite's transactions take the write lock first (BEGIN IMMEDIATE): they already take turns
    const digest = await (this.database.dialect === 'postgres' ? claim.forUpdate() : claim).executeTakeFirst();
    if (!digest || digest.frequency === 'off') return null;
    if (digest.sentAt !== null && digest.sentAt > now - DIGEST_PERIOD_MS[digest.frequency] + DUE_SLACK_MS) return null;
    const through = now - DIGEST_SETTLE_MS;
    const since = digest.listedThrough;
    const spam = trx
      .selectFrom('submissions')
      .where('submissions.workspaceId', '=', workspaceId)
      .where('submissions.status', '=', 'spam')
      .where('submissions.createdAt', '<=', through)
      // never sent: all the spam still kept (the first digest after an upgrade tells of what is already there)
      .$if(since !== null, (q) => q.where('submissions.createdAt', '>', since!))
      .where((eb) => eb.or([eb('submissions.spamReasons', 'is', null), eb('submissions.spamReasons', 'not like', OWNER_MARKED)]));
    const [count, rows] = await Promise.all([
      spam.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
      spam
        .innerJoin('forms', 'forms.id', 'submissions.formId')
        .select(['submissions.id', 'submissions.formId', 'submissions.data', 'submissions.emailControls', 'submissions.spamReasons', 'submissions.createdAt'])
        .select('forms.name as formName')
        .orderBy('submissions.createdAt', 'desc')
        .orderBy('submissions.id', 'desc')
        .limit(DIGEST_ITEMS)
        .execute(),
    ]);
    await trx.updateTable('spamDigests').set({ sentAt: now, listedThrough: through }).where('workspaceId', '=', workspaceId).execute();
    if (rows.length === 0) return null;
    const [workspace, members] = await Promise.all([
      trx.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirstOrThrow(),
      trx
        .selectFrom('workspaceMembers')
        .innerJoin('users', 'users.id', 'workspaceMembers.userId')
        .select(['users.id', 'users.email'])
        .where('workspaceMembers.workspaceId', '=', workspaceId)
        .where('workspaceMembers.spamDigest', '=', 1)
        .orderBy('users.id')
        .execute(),
    ]);
    const formIds = new Set(rows.map((row) => row.formId));
    const base = this.config.publicUrl;
    const facts = {
      workspaceName: workspace.name,
      more: Number(count.n) - rows.length,
      spamFolderUrl: formIds.size === 1 ? `${base}/forms/${rows[0]!.formId}/spam` : `${base}/w/${workspaceId}`,
      settingsUrl: `${base}/w/${workspaceId}/settings#spam-digest`,
      frequency: digest.frequency,
      linkDays: NOT_SPAM_LINK_DAYS,
    };
    const listed = rows.map((row) => {
      const data = fieldsOf(fromJson(row.data));
      const address = submitterAddress({ data, controls: storedEmailControls(row.emailControls) });
      return {
        id: row.id,
        sender: senderOf(data, address),
        formName: row.formName,
        firstLine: firstLineOf(data),
        reasons: reasonsOf(row.spamReasons),
        createdAt: row.createdAt,
      };
    });
    await enqueueJobs(
      trx,
      members.map((member) => {
        const items: DigestItem[] = listed.map(({ id, ...item }) => ({ ...item, notSpamUrl: this.links.url(id, member.id, now) }));
        // the links work without a login: the job keeps no text of them once sent
        const payload: EmailPayload = { ...automaticEmail(member.email, spamDigestMessage({ ...facts, items })), oneTimeLink: true };
        return { kind: EMAIL_KIND, payload };
      }),
    );
    return { emails: members.length, listed: Number(count.n) };
  }
}
