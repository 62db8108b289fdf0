import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { DB } from '../db/schema/index.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { DAY_MS } from '../domain/time.js';
import { ProblemError } from '../errors.js';
import { lockWorkspace } from './seats.js';

/** How one kind of derived count fared: rows compared with the submissions, rows changed. */
export interface CountKindReport {
  checked: number;
  corrected: number;
}

/** What `formgate repair-counts` changed, per kind of count, and which workspaces it touched. */
export interface CountRepairReport {
  exact: boolean;
  workspacesChecked: number;
  /** `daily_counts` rows (form × day): the dashboard's charts, month figures and last submission. */
  dayCounts: CountKindReport & { inserted: number; deleted: number };
  /** `workspaces.submissions_used`: the allowance's counter. */
  submissionsUsed: CountKindReport;
  /** `workspaces.file_bytes`: the bytes of the stored files, against the storage allowance. */
  fileBytes: CountKindReport;
  /** `unread_counts` rows (one per form): the inbox's unread figures, kept by triggers (migration 0045). */
  unreadCounts: CountKindReport;
  /** Only the workspaces where something was corrected. */
  changed: {
    workspaceId: string;
    dayCountsCorrected: number;
    unreadCountsCorrected?: number;
    submissionsUsed?: { from: number; to: number };
    fileBytes?: { from: number; to: number };
  }[];
}

export interface CountRepairOptions {
  /** Only this workspace (else every one, a transaction each). */
  workspaceId?: string;
  /**
   * Set the day counts to exactly what the stored submissions give, forgetting those deleted or
   * purged since they arrived. Off: a count is only raised to the submissions' (see recomputeDays).
   */
  exact?: boolean;
}

const PAGE = 200;

/**
 * Recomputes the counts derived from the submissions (after an upgrade ran old and new writers on one
 * database, or a restore): one transaction per workspace, so a large installation never holds one
 * huge transaction, and intake stops for a workspace only while its own counts are recomputed.
 */
export async function repairCounts(database: Database, options: CountRepairOptions = {}): Promise<CountRepairReport> {
  const exact = options.exact === true;
  const report: CountRepairReport = {
    exact,
    workspacesChecked: 0,
    dayCounts: { checked: 0, corrected: 0, inserted: 0, deleted: 0 },
    submissionsUsed: { checked: 0, corrected: 0 },
    fileBytes: { checked: 0, corrected: 0 },
    unreadCounts: { checked: 0, corrected: 0 },
    changed: [],
  };
  if (options.workspaceId !== undefined) {
    const found = await database.db.selectFrom('workspaces').select('id').where('id', '=', options.workspaceId).executeTakeFirst();
    if (!found) throw new ProblemError('not_found', `Workspace ${options.workspaceId} was not found.`);
    await repairOne(database, options.workspaceId, exact, report);
    return report;
  }
  let after = '';
  // between workspaces the event loop is given back once the repair has had its slice (it is a
  // command of its own, but its transactions are short so that a server's writes are not held)
  const slice = new LoopSlice();
  for (;;) {
    const ids = await database.db.selectFrom('workspaces').select('id').where('id', '>', after).orderBy('id').limit(PAGE).execute();
    for (const { id } of ids) {
      await slice.yieldIfDue();
      await repairOne(database, id, exact, report);
    }
    if (ids.length < PAGE) return report;
    after = ids.at(-1)!.id;
  }
}

/** How long the repair waits for the day counts' table lock before it gives way and tries again; and how often. */
const TABLE_LOCK_WAIT = '50ms';
const TABLE_LOCK_TRIES = 200;

/**
 * One workspace's transaction. On PostgreSQL it is tried again when the day counts' table was not had
 * in time (repairWorkspace): nothing of the report is counted before the lock is had.
 */
async function repairOne(database: Database, workspaceId: string, exact: boolean, report: CountRepairReport): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await database.transaction((trx) => repairWorkspace(trx, database.dialect, workspaceId, exact, report));
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= TABLE_LOCK_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}

const LOCK_NOT_AVAILABLE = '55P03';

async function repairWorkspace(
  trx: Transaction<DB>,
  dialect: Database['dialect'],
  workspaceId: string,
  exact: boolean,
  report: CountRepairReport,
): Promise<void> {
  // NOTE: the workspace's row first, as the writer and "Not spam" take it, then the day counts: no
  // writer counts a submission of this workspace between the recount and the write (no deadlock
  // either: every writer takes the workspace's row before the day counts). A batch of spam alone
  // takes no workspace row, so on PostgreSQL the table is locked against writes for the moment.
  // NOTE: intake's batch statement (db/intake-statement.ts) holds the table's ROW EXCLUSIVE lock from
  // its start and then waits for its workspaces' rows: waiting here for the table while holding a
  // workspace's row could deadlock with it (and the visitors of that batch would get an error). So
  // the repair waits briefly, then gives way (the transaction rolls back) and tries again.
  const workspace = await lockWorkspace(trx, workspaceId);
  if (dialect === 'postgres') {
    await sql.raw(`SET LOCAL lock_timeout = '${TABLE_LOCK_WAIT}'`).execute(trx);
    await sql`LOCK TABLE daily_counts IN SHARE ROW EXCLUSIVE MODE`.execute(trx);
    await sql`SET LOCAL lock_timeout = 0`.execute(trx);
  }
  const corrected = await recomputeDays(trx, workspaceId, exact, report);

  const row = await trx
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspaceId', '=', workspaceId)
    .where('status', '=', sql.lit('accepted'))
    .executeTakeFirstOrThrow();
  const accepted = Number(row.n);
  report.workspacesChecked++;
  report.submissionsUsed.checked++;
  // NOTE: never lowered: a deleted submission used its share of the allowance all the same.
  let used: { from: number; to: number } | undefined;
  if (accepted > workspace.submissionsUsed) {
    await trx.updateTable('workspaces').set({ submissionsUsed: accepted }).where('id', '=', workspaceId).execute();
    report.submissionsUsed.corrected++;
    used = { from: workspace.submissionsUsed, to: accepted };
  }
  const bytes = await recomputeFileBytes(trx, workspaceId, Number(workspace.fileBytes), report);
  const unread = await recomputeUnread(trx, dialect, workspaceId, report);
  if (corrected > 0 || used || bytes || unread > 0) {
    report.changed.push({
      workspaceId,
      dayCountsCorrected: corrected,
      ...(unread > 0 ? { unreadCountsCorrected: unread } : {}),
      ...(used ? { submissionsUsed: used } : {}),
      ...(bytes ? { fileBytes: bytes } : {}),
    });
  }
}

/**
 * Each form's unread count set to its unread inbox submissions; answers the forms corrected. The
 * triggers keep it exact, so only a database changed by hand (or a bug) needs this. PostgreSQL locks
 * the forms' count rows first (in form order, as the triggers take them): a mark made meanwhile waits,
 * then adds its change to the count written here, which its own row change was not part of.
 */
async function recomputeUnread(trx: Transaction<DB>, dialect: Database['dialect'], workspaceId: string, report: CountRepairReport): Promise<number> {
  const forms = trx.selectFrom('forms').select('id').where('workspaceId', '=', workspaceId);
  if (dialect === 'postgres') await trx.selectFrom('unreadCounts').select('formId').where('formId', 'in', forms).orderBy('formId').forUpdate().execute();
  const stored = await trx.selectFrom('unreadCounts').select(['formId', 'n']).where('formId', 'in', forms).execute();
  const fresh = await trx
    .selectFrom('submissions')
    .select((eb) => ['formId', eb.fn.countAll<number | string>().as('n')])
    .where('workspaceId', '=', workspaceId)
    .where('unread', '=', 1)
    .where('status', '=', sql.lit('accepted'))
    .groupBy('formId')
    .execute();
  const want = new Map(fresh.map((row) => [row.formId, Number(row.n)]));
  const have = new Map(stored.map((row) => [row.formId, Number(row.n)]));
  let corrected = 0;
  for (const formId of new Set([...have.keys(), ...want.keys()])) {
    const n = want.get(formId) ?? 0;
    if (have.get(formId) === n) continue;
    await trx
      .insertInto('unreadCounts')
      .values({ formId, n })
      .onConflict((oc) => oc.column('formId').doUpdateSet({ n }))
      .execute();
    corrected++;
  }
  report.unreadCounts.checked += new Set([...have.keys(), ...want.keys()]).size;
  report.unreadCounts.corrected += corrected;
  return corrected;
}

/** The stored files' bytes, set exactly: unlike the allowance, a deleted file gives its room back. */
async function recomputeFileBytes(
  trx: Transaction<DB>,
  workspaceId: string,
  stored: number,
  report: CountRepairReport,
): Promise<{ from: number; to: number } | undefined> {
  const row = await trx
    .selectFrom('submissionFiles')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('size'), sql.lit(0)).as('bytes'))
    .where('workspaceId', '=', workspaceId)
    .where('storageKey', 'is not', null)
    .executeTakeFirstOrThrow();
  const bytes = Number(row.bytes);
  report.fileBytes.checked++;
  if (bytes === stored) return undefined;
  await trx.updateTable('workspaces').set({ fileBytes: bytes }).where('id', '=', workspaceId).execute();
  report.fileBytes.corrected++;
  return { from: stored, to: bytes };
}

interface DayRow {
  formId: string;
  day: number;
  accepted: number;
  spam: number;
  lastAt: number;
}

/**
 * Each form × day of the workspace against its submissions. The stored counts keep submissions that
 * were deleted (or purged as spam) after they arrived, which the rows no longer show, so by default a
 * count is only raised to the rows' (what an old writer that did not count leaves behind); `exact`
 * sets it to the rows' and removes days with none. Answers the rows changed.
 */
async function recomputeDays(trx: Transaction<DB>, workspaceId: string, exact: boolean, report: CountRepairReport): Promise<number> {
  const day = sql<number>`created_at / ${sql.lit(DAY_MS)}`;
  const fresh = await trx
    .selectFrom('submissions')
    .select((eb) => [
      'formId',
      day.as('day'),
      sql<number | string>`SUM(CASE WHEN status = 'spam' THEN 0 ELSE 1 END)`.as('accepted'),
      sql<number | string>`SUM(CASE WHEN status = 'spam' THEN 1 ELSE 0 END)`.as('spam'),
      eb.fn.max('createdAt').as('lastAt'),
    ])
    .where('workspaceId', '=', workspaceId)
    .groupBy(['formId', day])
    .execute();
  const stored = await trx.selectFrom('dailyCounts').select(['formId', 'day', 'accepted', 'spam', 'lastAt']).where('workspaceId', '=', workspaceId).execute();
  const key = (r: { formId: string; day: number | string }) => `${r.formId} ${Number(r.day)}`;
  const have = new Map<string, DayRow>(stored.map((r) => [key(r), numbers(r)]));
  const want = new Map<string, DayRow>(fresh.map((r) => [key(r), numbers(r)]));
  let corrected = 0;
  for (const [k, rows] of want) {
    const now = have.get(k);
    const target =
      exact || !now
        ? rows
        : { ...rows, accepted: Math.max(now.accepted, rows.accepted), spam: Math.max(now.spam, rows.spam), lastAt: Math.max(now.lastAt, rows.lastAt) };
    if (!now) {
      await trx
        .insertInto('dailyCounts')
        .values({ ...target, workspaceId })
        .execute();
      report.dayCounts.inserted++;
    } else if (now.accepted !== target.accepted || now.spam !== target.spam || now.lastAt !== target.lastAt) {
      const { accepted, spam, lastAt } = target;
      await trx.updateTable('dailyCounts').set({ accepted, spam, lastAt }).where('formId', '=', target.formId).where('day', '=', target.day).execute();
    } else continue;
    corrected++;
  }
  for (const [k, row] of have) {
    if (want.has(k) || !exact) continue;
    await trx.deleteFrom('dailyCounts').where('formId', '=', row.formId).where('day', '=', row.day).execute();
    report.dayCounts.deleted++;
    corrected++;
  }
  report.dayCounts.checked += new Set([...have.keys(), ...want.keys()]).size;
  report.dayCounts.corrected += corrected;
  return corrected;
}

/** PostgreSQL answers sums and bigints as text. */
function numbers(r: { formId: string; day: number | string; accepted: number | string; spam: number | string; lastAt: number | string | null }): DayRow {
  return { formId: r.formId, day: Number(r.day), accepted: Number(r.accepted), spam: Number(r.spam), lastAt: Number(r.lastAt ?? 0) };
}
