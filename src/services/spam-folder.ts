import type { Database, Queryable } from '../db/database.js';
import { fromJson } from '../db/database.js';
import { foldForSearch } from '../domain/search-fold.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { ProblemError, validationError } from '../errors.js';
import { newestAfter, type Page, type PageRequest } from './pagination.js';
import { type FolderRow, reasonsOf } from './quarantine.js';
import { lockWorkspace } from './seats.js';
import { searchTextOf } from './search-text.js';
import { BULK_LIMIT } from './submission-marks.js';
import { OPEN_CAP } from './triage.js';

/** The spam folder's count stops where the inbox's open count does: the tab says "999+" past it. */
export const SPAM_COUNT_CAP = OPEN_CAP;

/**
 * The most spam rows one search page of the folder reads and checks. Spam keeps no search text
 * (nor a place in SQLite's index), so each row's fields are parsed and folded as the inbox's search
 * text is (search-text.ts): the page holds the matches among them, perhaps none, and its cursor
 * continues after the last row checked, as the inbox's SEARCH_ROW_CAP does. 2,500 is a Free
 * workspace's whole folder (domain/plans.ts).
 */
export const SPAM_SEARCH_ROW_CAP = 2_500;
/**
 * And the most bytes of fields a page folds: folding costs ~30 ns a byte of accented or non-Latin
 * text (NFD), so a folder of 20 KB posts (the bound's average) stops after ~1 MB, about 30 ms of work
 * given back to the event loop in slices, instead of 50 MB.
 */
export const SPAM_SEARCH_BYTE_CAP = 1024 * 1024;
/** Rows a search reads at once: what it may read past the byte cap. */
const SEARCH_BATCH = 100;

/** How many of a form's submissions are in its spam folder, counting no further than SPAM_COUNT_CAP (the caller checked membership). */
export async function countSpam(database: Database, formId: string): Promise<number> {
  // the form's listing index (form_id, status, created_at, id) answers it without reading a row
  const folder = database.db.selectFrom('submissions').select('submissions.id').where('formId', '=', formId).where('status', '=', 'spam').limit(SPAM_COUNT_CAP);
  const row = await database.db
    .selectFrom(folder.as('folder'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A page of a form's spam folder whose field names or values contain `search` (case- and
 * accent-insensitive, as the inbox's search: domain/search-fold.ts), newest first. It checks at most
 * SPAM_SEARCH_ROW_CAP rows or SPAM_SEARCH_BYTE_CAP bytes from where the page starts; a page that
 * stopped there without filling up says where the next one continues (`next`). The caller checked
 * membership.
 */
export async function searchSpam(database: Database, formId: string, page: PageRequest, search: string): Promise<Page<FolderRow>> {
  const term = foldForSearch(search);
  const rows: FolderRow[] = [];
  const slice = new LoopSlice();
  let after = page.after;
  let checked = 0;
  let bytes = 0;
  while (checked < SPAM_SEARCH_ROW_CAP && bytes < SPAM_SEARCH_BYTE_CAP) {
    await slice.yieldIfDue();
    const asked = Math.min(SEARCH_BATCH, SPAM_SEARCH_ROW_CAP - checked);
    const batch = await newestAfter(folderOf(database.db, formId), after, 'submissions').limit(asked).execute();
    let read = 0;
    for (const row of batch) {
      const text = typeof row.data === 'string' ? row.data : JSON.stringify(row.data);
      const data = fromJson(text);
      if (searchTextOf(data).includes(term)) {
        // one match more than the page: there is more, after the page's last row
        if (rows.length === page.limit) return { rows, hasMore: true };
        rows.push({ id: row.id, formId: row.formId, data, createdAt: Number(row.createdAt), spamReasons: reasonsOf(row.spamReasons) });
      }
      after = { createdAt: Number(row.createdAt), id: row.id };
      checked += 1;
      read += 1;
      bytes += text.length;
      if (bytes >= SPAM_SEARCH_BYTE_CAP) break;
    }
    // the folder's end, every row of it checked
    if (read === batch.length && batch.length < asked) return { rows, hasMore: false };
  }
  // stopped at a cap: whether any row is left after the last one checked (the listing index answers)
  const spam = database.db.selectFrom('submissions').select('submissions.id').where('formId', '=', formId).where('status', '=', 'spam');
  const left = await newestAfter(spam, after, 'submissions').limit(1).executeTakeFirst();
  return left && after ? { rows, hasMore: true, next: after } : { rows, hasMore: false };
}

/** A form's spam, the columns a folder's row shows. */
function folderOf(db: Queryable, formId: string) {
  return db
    .selectFrom('submissions')
    .select(['submissions.id', 'submissions.formId', 'submissions.data', 'submissions.createdAt', 'submissions.spamReasons'])
    .where('submissions.formId', '=', formId)
    .where('submissions.status', '=', 'spam');
}

/**
 * The chosen ids, each once and oldest first (the order Not spam counts them against the
 * allowance in, as a release does), all of them spam of this form of a workspace the account belongs
 * to; else nothing changes and the answer names the first that is not (`not_found`, as the inbox's
 * bulk actions answer). At most BULK_LIMIT.
 */
export async function spamIdsOf(database: Database, userId: string, formId: string, ids: string[]): Promise<string[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) throw validationError(['id: choose at least one submission'], 'No submission was chosen.');
  if (wanted.length > BULK_LIMIT) throw validationError([`id: at most ${BULK_LIMIT}`], `At most ${BULK_LIMIT} submissions can be changed at once.`);
  const found = await database.db
    .selectFrom('submissions')
    .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
    .select(['submissions.id', 'submissions.createdAt'])
    .where('submissions.id', 'in', wanted)
    .where('submissions.formId', '=', formId)
    .where('submissions.status', '=', 'spam')
    .where('workspaceMembers.userId', '=', userId)
    .orderBy('submissions.createdAt')
    .orderBy('submissions.id')
    .execute();
  const missing = wanted.find((id) => !found.some((row) => row.id === id));
  if (missing !== undefined) throw new ProblemError('not_found', `Submission ${missing} is not in this spam folder.`);
  return found.map((row) => row.id);
}

/**
 * Locks the workspaces of the chosen submissions (those the account belongs to), in id order, the
 * order every such lock is taken in: a deletion that takes spam out of its folder's bound and a
 * "Not spam" of the same submission (which locks its workspace first) then take turns, so the one
 * that comes second reads what the first left.
 */
export async function lockWorkspacesOf(trx: Queryable, userId: string, ids: string[]): Promise<void> {
  const rows = await trx
    .selectFrom('submissions')
    .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
    .select('submissions.workspaceId')
    .distinct()
    .where('submissions.id', 'in', ids)
    .where('workspaceMembers.userId', '=', userId)
    .execute();
  for (const workspaceId of rows.map((row) => row.workspaceId).sort()) await lockWorkspace(trx, workspaceId);
}
