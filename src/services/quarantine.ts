import type { PlanRules } from '../domain/plans.js';
import { sql, type Transaction } from 'kysely';
import type { Config } from '../config/config.js';
import { fromJson, type Database } from '../db/database.js';
import { dayOf } from '../db/schema/daily-count.js';
import type { DB } from '../db/schema/index.js';
import { ProblemError } from '../errors.js';
import { countAgainstAllowance } from './allowance.js';
import { deliveryPlan, enqueueDeliveries } from '../jobs/submission-jobs.js';
import { quotaNoticeJobs } from './mail-outbox.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import { lockWorkspace } from './seats.js';
import { searchTextOf } from './search-text.js';
import { hasSubmitter } from './workspaces.js';

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

/**
 * "Not spam": moves a quarantined submission into the inbox as if it had just passed the filter,
 * in one transaction. It counts against the allowance as the writer counts (accepted while it
 * lasts; past it held, and the first held one tells the owners); an accepted one gets its
 * deliveries as a release does; it becomes searchable; its day's count moves from spam to accepted.
 * The spam filter keeps no verdicts (docs/decisions.md), so nothing is taught or untaught.
 */
export async function markNotSpam(
  database: Database,
  config: Pick<Config, 'publicUrl'>,
  userId: string,
  submissionId: string,
  plans: PlanRules,
): Promise<{ status: 'accepted' | 'held'; formId: string }> {
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
      .select(['submissions.createdAt'])
      .select(['forms.notificationEmails', 'forms.slackChannel', 'forms.webhookUrl', 'forms.chatChannels', 'templates.paused as autoresponderPaused'])
      .where('submissions.id', '=', submissionId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!submission) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    if (submission.status !== 'spam') throw new ProblemError('conflict', `This submission is not in the spam folder: it is ${submission.status}.`);

    const status = await countAgainstAllowance(
      trx,
      workspace.id,
      Date.now(),
      (notice, workspaceId) => quotaNoticeJobs(notice, workspaceId, config).then(() => undefined),
      plans,
    );
    const searchText = searchTextOf(fromJson(submission.data));
    await trx.updateTable('submissions').set({ status, searchText, spamReasons: null }).where('seq', '=', submission.seq).execute();
    await reindex(database, trx, submission.seq);
    if (status === 'accepted') {
      const plan = deliveryPlan({ ...submission, plan: workspace.plan }, hasSubmitter(submission.data, submission.emailControls), plans);
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
    return { status, formId: submission.formId };
  });
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
