import type { Transaction } from 'kysely';
import { fromJson, type Database } from '../db/database.js';
import { fieldsOf } from '../domain/submission-summary.js';
import { PreparedListQuery } from '../db/prepared-list-query.js';
import { dayOf } from '../db/schema/daily-count.js';
import type { DB } from '../db/schema/index.js';
import { submitterAddress } from '../domain/submitter-address.js';
import { ProblemError, validationError } from '../errors.js';
import { storedEmailControls } from '../jobs/channels/channel.js';
import { OWNER_MARK, reindex } from './quarantine.js';
import { teach } from './spam-lessons.js';

/** A count of unread submissions is said up to here: from it on, the page says "99+". */
export const UNREAD_CAP = 100;
/** The longest note, in characters. */
export const NOTE_LIMIT = 2000;
/** The most submissions one bulk action changes: the ids travel in one form post. */
export const BULK_LIMIT = 100;

/** Where a bulk action's submissions must be: one form's inbox, or one workspace's. */
export type MarkScope = { formId: string } | { workspaceId: string };

/** What the inbox shows of a row beyond its fields. */
export interface RowMarks {
  unread: boolean;
  note: string | null;
  /** Marked done (triage); open otherwise. */
  done: boolean;
  assigneeId: string | null;
  /** Its stored files (the paperclip), as SubmissionFiles.storedCounts counts them. */
  files: number;
}

/**
 * The team's daily marks on submissions: read and unread, spam by hand, a note, and the ways
 * through a form's inbox one submission at a time. Every method checks that the account is a
 * member of the submissions' workspace.
 */
export class SubmissionMarks {
  // A page's marks, on every page of the inbox: built once per size of the page's list of ids.
  private readonly rowMarks = new PreparedListQuery((db, _: Record<string, never>, ids) =>
    db
      .selectFrom('submissions')
      .select(['id', 'unread', 'note', 'doneAt', 'assigneeId'])
      .select((eb) =>
        eb
          .selectFrom('submissionFiles')
          .select((inner) => inner.fn.countAll<number | string>().as('n'))
          .whereRef('submissionFiles.submissionId', '=', 'submissions.id')
          .where('submissionFiles.storageKey', 'is not', null)
          .as('files'),
      )
      .where('id', 'in', ids),
  );

  constructor(private readonly database: Database) {}

  /**
   * Unread accepted submissions per form, each count stopping at UNREAD_CAP: one row per form of
   * `unread_counts`, which triggers keep (migration 0045), in one statement for all the forms.
   */
  async unreadCounts(formIds: readonly string[]): Promise<Map<string, number>> {
    const ids = [...new Set(formIds)];
    const counts = new Map(ids.map((id) => [id, 0]));
    if (ids.length === 0) return counts;
    const rows = await this.database.db.selectFrom('unreadCounts').select(['formId', 'n']).where('formId', 'in', ids).execute();
    for (const row of rows) counts.set(row.formId, Math.min(Math.max(Number(row.n), 0), UNREAD_CAP));
    return counts;
  }

  /** Unread flags, notes, triage and stored files of a page's rows (one query). */
  async marksOf(ids: readonly string[]): Promise<Map<string, RowMarks>> {
    if (ids.length === 0) return new Map();
    const rows = await this.rowMarks.execute(this.database.db, {}, ids);
    return new Map(
      rows.map((row) => [
        row.id,
        { unread: row.unread === 1, note: row.note, done: row.doneAt !== null, assigneeId: row.assigneeId, files: Number(row.files ?? 0) },
      ]),
    );
  }

  /** Opening a submission marks it read for the whole team (a write only when it was unread). */
  async markRead(userId: string, submissionId: string): Promise<void> {
    await this.memberSubmission(userId, submissionId);
    await this.database.db.updateTable('submissions').set({ unread: 0 }).where('id', '=', submissionId).where('unread', '=', 1).execute();
  }

  /** "Mark as unread": bold in the inbox again, for everyone of the workspace. */
  async markUnread(userId: string, submissionId: string): Promise<{ formId: string }> {
    const submission = await this.memberSubmission(userId, submissionId);
    if (submission.status !== 'accepted') throw new ProblemError('conflict', `Only a submission of the inbox can be unread: this one is ${submission.status}.`);
    await this.database.db.updateTable('submissions').set({ unread: 1 }).where('id', '=', submissionId).execute();
    return { formId: submission.formId };
  }

  /** Checks that every id is an accepted submission of the scope, the account a member (before a bulk delete's confirmation, or a triage change); the ids, once each. */
  async checkInbox(userId: string, scope: MarkScope, ids: string[]): Promise<string[]> {
    return this.inboxIds(userId, scope, ids);
  }

  /** Marks the chosen inbox submissions read (or unread again, `unread`); returns how many changed. */
  async markAllRead(userId: string, scope: MarkScope, ids: string[], unread = false): Promise<number> {
    const wanted = await this.inboxIds(userId, scope, ids);
    const to = unread ? 1 : 0;
    const result = await this.database.db
      .updateTable('submissions')
      .set({ unread: to })
      .where('id', 'in', wanted)
      .where('unread', '=', 1 - to)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * "Mark as spam": accepted submissions move to the spam folder, as the filter would have put them
   * there: out of the list and the search, their day's count from accepted to spam, removed when the
   * spam retention ends. Deliveries already queued are not called back, and the allowance they used
   * is not given back (deleting gives none back either). "Not spam" brings them back as they were,
   * counting and sending nothing again (quarantine.ts, wasInInbox: the reason written here says so).
   * The spam filter learns from them (spam-lessons.ts).
   */
  async markSpam(userId: string, byEmail: string, scope: MarkScope, ids: string[]): Promise<number> {
    const wanted = await this.inboxIds(userId, scope, ids);
    const reasons = JSON.stringify([`${OWNER_MARK} ${byEmail}`]);
    return this.database.transaction(async (trx) => {
      // NOTE: read again inside the transaction, and locked on PostgreSQL (SQLite runs one writer at a
      // time): only those still accepted move, so two clicks or requests at once take turns, and a
      // day's count and the filter's lesson move once
      const query = trx
        .selectFrom('submissions')
        .select(['seq', 'id', 'workspaceId', 'formId', 'createdAt', 'data', 'spamLesson'])
        .where('id', 'in', wanted)
        .where('status', '=', 'accepted')
        .orderBy('seq');
      const rows = await (this.database.dialect === 'postgres' ? query.forUpdate() : query).execute();
      if (rows.length === 0) return 0;
      // the scope is one form or one workspace: every row is of one workspace
      await teach(trx, rows[0]!.workspaceId, rows, 'spam');
      await trx
        .updateTable('submissions')
        .set({ status: 'spam', searchText: '', spamReasons: reasons, unread: 0 })
        .where(
          'seq',
          'in',
          rows.map((row) => row.seq),
        )
        .execute();
      for (const row of rows) await reindex(this.database, trx, row.seq);
      await moveDayCounts(trx, rows);
      return rows.length;
    });
  }

  /** A submission's note: trimmed, at most NOTE_LIMIT characters; empty removes it. */
  async setNote(userId: string, submissionId: string, note: string): Promise<{ note: string | null }> {
    await this.memberSubmission(userId, submissionId);
    const text = note.replace(/\r\n?/g, '\n').trim();
    if ([...text].length > NOTE_LIMIT) {
      throw validationError(
        [`note: at most ${NOTE_LIMIT.toLocaleString('en-US')} characters`],
        `A note holds at most ${NOTE_LIMIT.toLocaleString('en-US')} characters.`,
      );
    }
    const stored = text === '' ? null : text;
    await this.database.db.updateTable('submissions').set({ note: stored }).where('id', '=', submissionId).execute();
    return { note: stored };
  }

  /** The next newer and older submissions of the form's inbox (the inbox's order: newest first), for Previous and Next. */
  async neighbours(formId: string, at: { createdAt: number; id: string }): Promise<{ newer: string | null; older: string | null }> {
    const base = () => this.database.db.selectFrom('submissions').select('submissions.id').where('formId', '=', formId).where('status', '=', 'accepted');
    const [newer, older] = await Promise.all([
      base()
        .where((eb) => eb(eb.refTuple('submissions.createdAt', 'submissions.id'), '>', eb.tuple(at.createdAt, at.id)))
        .orderBy('createdAt', 'asc')
        .orderBy('id', 'asc')
        .limit(1)
        .executeTakeFirst(),
      base()
        .where((eb) => eb(eb.refTuple('submissions.createdAt', 'submissions.id'), '<', eb.tuple(at.createdAt, at.id)))
        .orderBy('createdAt', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst(),
    ]);
    return { newer: newer?.id ?? null, older: older?.id ?? null };
  }

  /** What the submission page needs beyond the submission: its note and whom a reply goes to. */
  async detailsOf(submissionId: string): Promise<{ note: string | null; replyTo: string | null }> {
    const row = await this.database.db.selectFrom('submissions').select(['data', 'emailControls', 'note']).where('id', '=', submissionId).executeTakeFirst();
    if (!row) return { note: null, replyTo: null };
    const data = fieldsOf(fromJson(row.data));
    return { note: row.note, replyTo: submitterAddress({ data, controls: storedEmailControls(row.emailControls) }) };
  }

  private async memberSubmission(userId: string, submissionId: string) {
    const row = await this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .select(['submissions.formId', 'submissions.status'])
      .where('submissions.id', '=', submissionId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!row) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    return row;
  }

  /**
   * The chosen ids, all of them accepted submissions of the scope (a form, or a workspace) whose
   * workspace the account belongs to; else nothing changes and the answer names the first that is not.
   */
  private async inboxIds(userId: string, scope: MarkScope, ids: string[]): Promise<string[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) throw validationError(['id: choose at least one submission'], 'No submission was chosen.');
    if (wanted.length > BULK_LIMIT) throw validationError([`id: at most ${BULK_LIMIT}`], `At most ${BULK_LIMIT} submissions can be changed at once.`);
    let query = this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .select('submissions.id')
      .where('submissions.id', 'in', wanted)
      .where('submissions.status', '=', 'accepted')
      .where('workspaceMembers.userId', '=', userId);
    query = 'formId' in scope ? query.where('submissions.formId', '=', scope.formId) : query.where('submissions.workspaceId', '=', scope.workspaceId);
    const found = new Set((await query.execute()).map((row) => row.id));
    const missing = wanted.find((id) => !found.has(id));
    if (missing !== undefined) throw new ProblemError('not_found', `Submission ${missing} is not in this inbox.`);
    return wanted;
  }
}

/** Each (form, day) of the moved rows: from accepted to spam in the charts, as "Not spam" moves it back. */
async function moveDayCounts(trx: Transaction<DB>, rows: { formId: string; createdAt: number }[]): Promise<void> {
  const moves = new Map<string, { formId: string; day: number; n: number }>();
  for (const row of rows) {
    const day = dayOf(row.createdAt);
    const key = `${row.formId} ${day}`;
    const move = moves.get(key) ?? { formId: row.formId, day, n: 0 };
    move.n += 1;
    moves.set(key, move);
  }
  // (form, day) order: two writers take PostgreSQL's row locks in one order (db/day-counts.ts)
  const ordered = [...moves.values()].sort((a, b) => (a.formId < b.formId ? -1 : a.formId > b.formId ? 1 : a.day - b.day));
  for (const { formId, day, n } of ordered) {
    await trx
      .updateTable('dailyCounts')
      .set((eb) => ({ accepted: eb('accepted', '-', n), spam: eb('spam', '+', n) }))
      .where('formId', '=', formId)
      .where('day', '=', day)
      .where('accepted', '>=', n)
      .execute();
  }
}
