import { type Plan, type PlanRules, type SpamFolderCap, spamFolderCap } from '../domain/plans.js';
import { sql, type Transaction } from 'kysely';
import type { Config } from '../config/config.js';
import { fromJson, type Database } from '../db/database.js';
import { dayOf } from '../db/schema/daily-count.js';
import type { DB } from '../db/schema/index.js';
import { ProblemError } from '../errors.js';
import { countAgainstAllowance } from './allowance.js';
import { deliveryPlan, enqueueDeliveries } from '../jobs/submission-jobs.js';
import { hooksOfForm } from '../jobs/hook-jobs.js';
import { destinationsOfForm } from '../jobs/destination-jobs.js';
import { quotaNoticeJobs } from './mail-outbox.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import { lockWorkspace } from './seats.js';
import { searchTextOf } from './search-text.js';
import { teach } from './spam-lessons.js';
import { hasSubmitter } from './workspaces.js';

/** The reason "Mark as spam" gives (submission-marks.ts): such spam is the owner's own, never counted into the spam folder's bound. */
export const OWNER_MARK = 'Marked as spam by';

/** A submission kept out of the inbox: quarantined as spam (with why) or held past the allowance. */
export interface FolderRow {
  id: string;
  formId: string;
  /** The fields, parsed. */
  data: unknown;
  createdAt: number;
  /** The signals that caught it (spam only; empty for held ones and for spam stored before reasons were kept). */
  spamReasons: string[];
}

/**
 * A form's spam folder or held submissions, newest first, in keyset pages (the form's listing
 * index serves both). The caller has checked that the account is a member of the form's workspace.
 */
export async function listFolder(database: Database, formId: string, status: 'spam' | 'held', page: PageRequest): Promise<Page<FolderRow>> {
  const query = database.db
    .selectFrom('submissions')
    .select(['submissions.id', 'submissions.formId', 'submissions.data', 'submissions.createdAt', 'submissions.spamReasons'])
    .where('submissions.formId', '=', formId)
    .where('submissions.status', '=', status);
  const found = await keysetPage(query, page, 'submissions');
  return { hasMore: found.hasMore, rows: found.rows.map((row) => ({ ...row, data: fromJson(row.data), spamReasons: reasonsOf(row.spamReasons) })) };
}

/** The stored reasons (a JSON array of sentences), or none. */
export function reasonsOf(stored: string | null): string[] {
  if (!stored) return [];
  const reasons = fromJson<unknown>(stored);
  return Array.isArray(reasons) ? reasons.filter((r): r is string => typeof r === 'string') : [];
}

/** How many of a form's submissions are held (the held partial index is by workspace; the listing index by form answers this). */
export async function countHeld(database: Database, formId: string): Promise<number> {
  const row = await database.db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('formId', '=', formId)
    .where('status', '=', 'held')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Where "Not spam" put a submission; `returned`: it was in the inbox before, and nothing was counted or sent again. */
export interface NotSpamOutcome {
  status: 'accepted' | 'held';
  formId: string;
  returned: boolean;
}

/**
 * Whether a spam submission was in the inbox before: the owner's own "Mark as spam" moves only
 * accepted ones, so such a submission was counted against the allowance and got its deliveries then.
 */
export function wasInInbox(spamReasons: string | null): boolean {
  return reasonsOf(spamReasons)[0]?.startsWith(OWNER_MARK) ?? false;
}

/**
 * "Not spam": moves a quarantined submission into the inbox, in one transaction. One the filter
 * caught comes in as if it had just passed the filter: it counts against the allowance as the
 * writer counts (accepted while it lasts; past it held, and the first held one tells the owners)
 * and an accepted one gets its deliveries as a release does. One the owner marked as spam
 * (wasInInbox) goes back as it was: it counted and got its deliveries when it was first accepted,
 * so it counts nothing and sends nothing again (issue 39, item 1). Either way it becomes searchable
 * and its day's count moves from spam to accepted. The spam filter learns that it is legitimate
 * (spam-lessons.ts; one marked as spam before is moved to that side, not counted twice).
 */
export async function markNotSpam(
  database: Database,
  config: Pick<Config, 'publicUrl'>,
  userId: string,
  submissionId: string,
  plans: PlanRules,
): Promise<NotSpamOutcome> {
  const member = await database.db
    .selectFrom('submissions')
    .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
    .select(['submissions.workspaceId'])
    .where('submissions.id', '=', submissionId)
    .where('workspaceMembers.userId', '=', userId)
    .executeTakeFirst();
  if (!member) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
  return database.transaction(async (trx) => {
    // NOTE: locked first, as setPlan does: no submission is counted between the check and the count,
    // and two clicks on Not spam take turns (the second finds it no longer spam).
    const workspace = await lockWorkspace(trx, member.workspaceId);
    const submission = await trx
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .leftJoin('templates', (join) => join.onRef('templates.formId', '=', 'forms.id').on('templates.kind', '=', 'autoresponder'))
      .select(['submissions.seq', 'submissions.id', 'submissions.formId', 'submissions.status', 'submissions.data', 'submissions.emailControls'])
      .select(['submissions.createdAt', 'submissions.spamReasons', 'submissions.spamLesson'])
      .select(['forms.notificationEmails', 'forms.slackChannel', 'forms.webhookUrl', 'forms.chatChannels', 'templates.paused as autoresponderPaused'])
      .where('submissions.id', '=', submissionId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!submission) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    if (submission.status !== 'spam') throw new ProblemError('conflict', `This submission is not in the spam folder: it is ${submission.status}.`);

    // NOTE: read before the row loses its reasons below
    const returning = wasInInbox(submission.spamReasons);
    const status = returning
      ? 'accepted'
      : await countAgainstAllowance(
          trx,
          workspace.id,
          Date.now(),
          (notice, workspaceId) => quotaNoticeJobs(notice, workspaceId, config).then(() => undefined),
          plans,
        );
    await teach(trx, workspace.id, [submission], 'ham');
    const searchText = searchTextOf(fromJson(submission.data));
    await trx.updateTable('submissions').set({ status, searchText, spamReasons: null }).where('seq', '=', submission.seq).execute();
    // the owner's own Mark as spam was never counted into the spam folder's bound
    if (!returning) await uncountSpam(trx, workspace.id, submission);
    await reindex(database, trx, submission.seq);
    if (status === 'accepted' && !returning) {
      const hooks = await hooksOfForm(trx, submission.formId, ['submission.created']);
      const destinations = await destinationsOfForm(trx, submission.formId);
      const plan = deliveryPlan({ ...submission, plan: workspace.plan, hooks, destinations }, hasSubmitter(submission.data, submission.emailControls), plans);
      await enqueueDeliveries(trx, submission, plan);
    }
    // its day's chart: held counts as accepted there (it arrived and is not spam)
    await trx
      .updateTable('dailyCounts')
      .set((eb) => ({ spam: eb('spam', '-', 1), accepted: eb('accepted', '+', 1) }))
      .where('formId', '=', submission.formId)
      .where('day', '=', dayOf(submission.createdAt))
      .where('spam', '>', 0)
      .execute();
    return { status, formId: submission.formId, returned: returning };
  });
}

/** What a workspace's spam folder holds within the spam retention (an upper bound: spam_days), its bound, and the spam dropped past it. */
export interface SpamFolderState {
  caught: number;
  bytes: number;
  dropped: number;
  cap: SpamFolderCap;
}

/**
 * The spam folder of a workspace as the writer measures it (intake/writer.ts): the spam caught
 * within the retention, and what was dropped because the folder was full, from at most a row per
 * day. The caller has checked that the account is a member.
 */
export async function spamFolderState(
  database: Database,
  workspace: { id: string; plan: Plan },
  retentionMs: number,
  plans: PlanRules,
  now = Date.now(),
): Promise<SpamFolderState> {
  const row = await database.db
    .selectFrom('spamDays')
    .select([
      (eb) => eb.fn.sum<number | string | null>('caught').as('caught'),
      (eb) => eb.fn.sum<number | string | null>('bytes').as('bytes'),
      (eb) => eb.fn.sum<number | string | null>('dropped').as('dropped'),
    ])
    .where('workspaceId', '=', workspace.id)
    .where('day', '>=', dayOf(now - retentionMs))
    .executeTakeFirst();
  return {
    caught: Number(row?.caught ?? 0),
    bytes: Number(row?.bytes ?? 0),
    dropped: Number(row?.dropped ?? 0),
    cap: spamFolderCap(workspace.plan, plans.isUpgraded(workspace.plan)),
  };
}

/** Forgets the days of spam older than the retention: no spam of them is left to count (the hourly spam purge). */
export async function forgetSpamDays(database: Database, retentionMs: number, now = Date.now()): Promise<number> {
  const result = await database.db
    .deleteFrom('spamDays')
    .where('day', '<', dayOf(now - retentionMs))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Spam deleted from the dashboard (its Delete, docs/decisions.md) leaves the folder's bound at once,
 * as Not spam does: each that the filter caught is taken off its day (the owner's own Mark as spam was
 * never counted). In the deleting transaction, before its files are released: their bytes count.
 */
export async function uncountDeletedSpam(trx: Transaction<DB>, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await trx
    .selectFrom('submissions')
    .select(['id', 'workspaceId', 'data', 'createdAt', 'spamReasons'])
    .where('id', 'in', ids)
    .where('status', '=', 'spam')
    .execute();
  for (const row of rows) if (!wasInInbox(row.spamReasons)) await uncountSpam(trx, row.workspaceId, row);
}

/** A submission leaves the spam folder (Not spam, Delete): its day no longer counts it, nor its bytes (fields and stored files). */
async function uncountSpam(trx: Transaction<DB>, workspaceId: string, submission: { id: string; data: unknown; createdAt: number }): Promise<void> {
  const files = await trx
    .selectFrom('submissionFiles')
    .select((eb) => eb.fn.sum<number | string | null>('size').as('bytes'))
    .where('submissionId', '=', submission.id)
    .where('storageKey', 'is not', null)
    .executeTakeFirst();
  const data = typeof submission.data === 'string' ? submission.data : JSON.stringify(submission.data);
  const bytes = Buffer.byteLength(data) + Number(files?.bytes ?? 0);
  await trx
    .updateTable('spamDays')
    .set((eb) => ({
      caught: eb('caught', '-', 1),
      bytes: eb
        .case()
        .when('bytes', '>', bytes)
        .then(eb('bytes', '-', bytes))
        .else(0)
        .end(),
    }))
    .where('workspaceId', '=', workspaceId)
    .where('day', '=', dayOf(submission.createdAt))
    .where('caught', '>', 0)
    .execute();
}

/**
 * Makes a row's new search text searchable. PostgreSQL's trigram index follows the UPDATE itself.
 * SQLite's FTS index is fed from the search backlog only on INSERT (migration 0009), so an UPDATE
 * would leave it with the old text: the row leaves the index (by its rowid: the index is contentless,
 * migration 0017) and goes back into the backlog, where searches find it at once and the indexer
 * indexes it again. A row still in the backlog is indexed anew anyway.
 */
export async function reindex(database: Database, trx: Transaction<DB>, seq: number): Promise<void> {
  if (database.dialect !== 'sqlite') return;
  await sql`DELETE FROM submissions_search WHERE rowid = ${seq} AND NOT EXISTS (SELECT 1 FROM search_backlog WHERE seq = ${seq})`.execute(trx);
  await sql`INSERT INTO search_backlog (seq) VALUES (${seq}) ON CONFLICT (seq) DO NOTHING`.execute(trx);
}
