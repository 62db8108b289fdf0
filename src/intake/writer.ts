import { PlanRules } from '../domain/plans.js';
import { type Kysely, sql, type Transaction } from 'kysely';
import { toJson, type Database, type Dialect } from '../db/database.js';
import { type IntakeSubmissionRow, writeIntakeBatch } from '../db/intake-statement.js';
import { type DailyCountTable, dayOf } from '../db/schema/daily-count.js';
import { addDayCounts } from '../db/day-counts.js';
import { GroupCommit } from '../db/group-commit.js';
import { claimFiles } from '../db/file-claims.js';
import { insertRows } from '../db/insert-rows.js';
import type { DB } from '../db/schema/index.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { newId } from '../ids.js';
import { enqueueJobs, jobRowsOf } from '../jobs/outbox.js';
import { deliveryJobs, type DeliveryPlan } from '../jobs/submission-jobs.js';
import { hookJobs } from '../jobs/hook-jobs.js';
import { searchTextOf } from '../services/search-text.js';
import type { FilePart as ReceivedFile } from '../db/file-claims.js';
import { formClosed } from '../services/form-behaviour.js';
import { spamPastFolder } from './spam-folder.js';
import { type AllowanceReached, allowanceSql, countAgainstAllowance, heldFull, heldRoom } from '../services/allowance.js';

/** A submission that passed the checks, ready to be written. */
export interface SubmissionToStore {
  formId: string;
  workspaceId: string;
  data: Record<string, unknown>;
  /** `_email.*` and `_replyto`, for the email step; null when none were sent. */
  emailControls: Record<string, string> | null;
  spam: boolean;
  /** The spam filter's reasons (the signals that fired), kept with it: why it is spam, or what was weighed before it was let in. */
  spamReasons?: string[];
  /** The deliveries an accepted submission gets; held and spam ones get none. */
  deliveries: DeliveryPlan;
  /** Its file parts (stored and dropped), claimed in its own transaction; absent when it carried none. */
  files?: readonly ReceivedFile[];
  /** The post's reservation of file bytes (db/file-reservations.ts), converted into stored bytes as it is claimed. */
  fileReservation?: string;
  /** The form's cap of submissions (services/form-behaviour.ts); absent: none, and nothing is counted for it. */
  maxSubmissions?: number;
}

export interface StoredSubmission {
  id: string;
  createdAt: number;
  status: SubmissionStatus;
  /** Spam not kept: its workspace's spam folder was full (nothing was written but the count of it). */
  spamDropped?: true;
}

export type { AllowanceReached } from '../services/allowance.js';

/** A submission past the allowance of a workspace that holds all it may: refused, not stored. */
type Counted = SubmissionStatus | 'refused';
const REFUSED = 'refused';
/** A submission to a form that holds its cap: refused, not stored. */
const FULL = 'full';
/** Spam past its workspace's spam folder's bound: dropped, only counted. */
const SPAM_DROPPED = 'spam-dropped';
type Outcome = StoredSubmission | typeof REFUSED | typeof FULL | typeof SPAM_DROPPED;
/** The spam retention when none is given (FORMGATE_SPAM_RETENTION_DAYS' default). */
const SPAM_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
// A workspace found holding all it may is not counted again for this long: counting costs up to the
// cap's index entries (a few ms at 50,000), and a full workspace under a flood would pay it per batch.
// NOTE: the price is that room made meanwhile (a release, a deleted held submission) shows this much later.
const FULL_RECHECK_MS = 5_000;

const SUBMISSION_COLUMNS = ['id', 'formId', 'workspaceId', 'data', 'status', 'searchText', 'emailControls', 'spamReasons', 'unread', 'createdAt'] as const;

/**
 * Writes submissions with group commit (db/group-commit.ts): the submissions that arrive while the
 * previous batch is being written go into one transaction, and each visitor is answered only once
 * theirs has committed and reached the disk. The flush runs off the event loop, alongside the next
 * batch's write (Database.transactionFlushedLater).
 */
export class SubmissionWriter {
  private readonly batches: GroupCommit<SubmissionToStore, Outcome>;
  private readonly dialect: Dialect;
  /** Workspaces found holding all they may past their allowance, and until when that is believed. */
  private readonly fullUntil = new Map<string, number>();

  constructor(
    database: Database,
    private readonly onAllowanceReached: AllowanceReached,
    /** The installation's plan rules (team mode: no allowance), asked per batch from memory. */
    private readonly plans: PlanRules = PlanRules.fixed('hosting'),
    /** How long spam is kept: the spam folder's bound counts what was caught within it. */
    private readonly spamRetentionMs = SPAM_RETENTION_MS,
  ) {
    this.dialect = database.dialect;
    this.batches = new GroupCommit(
      (batch) => this.write(database, batch),
      () => database.whenDurable(),
    );
  }

  /**
   * On PostgreSQL a batch without files or capped forms is first written whole in one statement
   * (db/intake-statement.ts): one round trip instead of six, each of which cost the server's CPU as
   * much as its share of the insert. When a workspace's allowance does not hold its part, that
   * statement writes nothing and the batch is counted a submission at a time in a transaction.
   */
  private async write(database: Database, batch: SubmissionToStore[]): Promise<Outcome[]> {
    const now = Date.now();
    // NOTE: a workspace found full would fail the whole statement batch after batch under a flood
    // NOTE: spam goes through the transaction, where its workspace's spam folder is checked
    const whole = (submission: SubmissionToStore) =>
      submission.maxSubmissions === undefined && !submission.files && !submission.spam && !((this.fullUntil.get(submission.workspaceId) ?? 0) > now);
    if (this.dialect === 'postgres' && batch.every(whole)) {
      const written = await database.write((db) => this.writeWhole(db, batch));
      if (written) return written;
    }
    return database.transactionFlushedLater((trx) => this.insertBatch(trx, batch));
  }

  /** The batch in one statement, every submission accepted or spam; null when a workspace's allowance does not hold its part (nothing written). */
  private async writeWhole(db: Kysely<DB>, batch: SubmissionToStore[]): Promise<Outcome[] | null> {
    const createdAt = Date.now();
    const kept = batch.map((submission) => ({ submission, status: (submission.spam ? 'spam' : 'accepted') as SubmissionStatus, id: newId() }));
    const counts = new Map<string, number>();
    for (const { submission, status } of kept) if (status === 'accepted') counts.set(submission.workspaceId, (counts.get(submission.workspaceId) ?? 0) + 1);
    const rows = submissionRowsOf(kept, createdAt);
    const written = await writeIntakeBatch(
      db,
      { counts: [...counts], submissions: rows, jobs: jobRowsOf(jobsOf(kept, createdAt)), days: dayCountsOf(rows, createdAt) },
      allowanceSql(this.plans),
    );
    return written ? kept.map(({ status, id }) => ({ id, createdAt, status })) : null;
  }

  /**
   * Resolves once the submission is committed (with the others of its batch) and durable; rejects
   * with `quota_exceeded` when its workspace holds all it may past its allowance (nothing stored).
   */
  async store(submission: SubmissionToStore): Promise<StoredSubmission> {
    const stored = await this.batches.add(submission);
    if (stored === SPAM_DROPPED) return { id: newId(), createdAt: Date.now(), status: 'spam', spamDropped: true };
    if (stored === REFUSED) throw heldFull();
    if (stored === FULL) throw formClosed('full', { paused: 0, closesAt: null, maxSubmissions: submission.maxSubmissions ?? null });
    return stored;
  }

  /**
   * Counts the batch against the allowances (spam never counts), then inserts its rows in one
   * statement and enqueues the deliveries of the accepted ones; in arrival order throughout.
   */
  private async insertBatch(trx: Transaction<DB>, batch: SubmissionToStore[]): Promise<Outcome[]> {
    const createdAt = Date.now();
    const full = await this.overCap(trx, batch);
    const unfull = full.size === 0 ? batch : batch.filter((submission) => !full.has(submission));
    const dropped = await spamPastFolder(trx, this.dialect, this.plans, this.spamRetentionMs, unfull, createdAt);
    const fitting = full.size === 0 && dropped.size === 0 ? batch : batch.filter((submission) => !full.has(submission) && !dropped.has(submission));
    const statuses = await this.count(trx, fitting, createdAt);
    const kept: Kept[] = [];
    fitting.forEach((submission, i) => {
      const status = statuses[i]!;
      if (status !== REFUSED) kept.push({ submission, status, id: newId() });
    });
    const rows = submissionRowsOf(kept, createdAt);
    if (rows.length > 0) {
      await insertRows(trx, 'submissions', SUBMISSION_COLUMNS, rows);
      await addDayCounts(trx, this.dialect, dayCountsOf(rows, createdAt));
      const withFiles = kept.filter(({ submission }) => submission.files);
      if (withFiles.length > 0) {
        await claimFiles(
          trx,
          withFiles.map(({ submission, id }) => ({
            submissionId: id,
            formId: submission.formId,
            workspaceId: submission.workspaceId,
            files: submission.files!,
            ...(submission.fileReservation ? { reservationId: submission.fileReservation } : {}),
          })),
          createdAt,
        );
      }
    }
    await enqueueJobs(trx, jobsOf(kept, createdAt));
    const stored = new Map(kept.map(({ submission, status, id }) => [submission, { id, createdAt, status }]));
    return batch.map((submission) => stored.get(submission) ?? (full.has(submission) ? FULL : dropped.has(submission) ? SPAM_DROPPED : REFUSED));
  }

  /**
   * The submissions of the batch past their form's cap, in arrival order. A capped form's taken
   * submissions are the sum of its day counts (every one that is not spam, held ones too; a deleted
   * one stays counted): at most a row per day of the form. PostgreSQL locks the capped forms' rows
   * first (by id, so two batches cannot deadlock), so that of two instances' batches the second sums
   * the first's counts once it has committed: the cap holds exactly. A batch without a capped form
   * reads nothing.
   */
  private async overCap(trx: Transaction<DB>, batch: SubmissionToStore[]): Promise<Set<SubmissionToStore>> {
    const caps = new Map<string, number>();
    for (const submission of batch) if (submission.maxSubmissions !== undefined) caps.set(submission.formId, submission.maxSubmissions);
    const over = new Set<SubmissionToStore>();
    if (caps.size === 0) return over;
    const formIds = [...caps.keys()].sort();
    // NOTE: NO KEY UPDATE, not UPDATE: the submissions' foreign key checks (KEY SHARE) of the form go on meanwhile
    if (this.dialect === 'postgres') await trx.selectFrom('forms').select('id').where('id', 'in', formIds).orderBy('id').forNoKeyUpdate().execute();
    const rows = await trx
      .selectFrom('dailyCounts')
      .select(['formId', (eb) => eb.fn.sum<number | string>('accepted').as('taken')])
      .where('formId', 'in', formIds)
      .groupBy('formId')
      .execute();
    const taken = new Map(rows.map((row) => [row.formId, Number(row.taken)]));
    for (const submission of batch) {
      const cap = caps.get(submission.formId);
      if (cap === undefined) continue;
      const n = taken.get(submission.formId) ?? 0;
      if (n >= cap) over.add(submission);
      else if (!submission.spam) taken.set(submission.formId, n + 1);
    }
    return over;
  }

  /**
   * Each submission's status. The workspaces whose allowance holds all of their part of the batch
   * are counted together in one statement; one near its limit is then counted a submission at a
   * time, so exactly the first ones fit; past the allowance, as many are held as the workspace may
   * still hold, and the rest refused.
   */
  private async count(trx: Transaction<DB>, batch: SubmissionToStore[], now: number): Promise<Counted[]> {
    const statuses: Counted[] = batch.map((submission) => (submission.spam ? 'spam' : 'accepted'));
    const byWorkspace = new Map<string, number[]>();
    batch.forEach((submission, i) => {
      if (submission.spam) return;
      const indexes = byWorkspace.get(submission.workspaceId);
      if (indexes) indexes.push(i);
      else byWorkspace.set(submission.workspaceId, [i]);
    });
    if (byWorkspace.size === 0) return statuses;
    const counted = await this.countWhole(
      trx,
      [...byWorkspace].map(([workspaceId, indexes]) => [workspaceId, indexes.length]),
    );
    for (const [workspaceId, indexes] of byWorkspace) {
      if (counted.has(workspaceId)) continue;
      let room: number | null = null;
      for (const i of indexes) {
        const status = await this.countOne(trx, workspaceId, now);
        if (status === 'held') {
          room ??= await this.heldRoom(trx, workspaceId, now);
          statuses[i] = room > 0 ? 'held' : REFUSED;
          room--;
          if (room <= 0) this.fullUntil.set(workspaceId, now + FULL_RECHECK_MS);
        } else statuses[i] = status;
      }
    }
    return statuses;
  }

  /**
   * Adds each workspace's part of the batch to its counter where the allowance holds all of it, in
   * one statement (a round trip per workspace made PostgreSQL batches slow); answers the workspaces
   * counted.
   */
  private async countWhole(trx: Transaction<DB>, parts: [workspaceId: string, count: number][]): Promise<Set<string>> {
    const wanted = sql.join(parts.map(([workspaceId, count]) => sql`(${workspaceId}, CAST(${count} AS integer))`));
    // NOTE: PostgreSQL locks the rows in one order (by id) first, so two instances' batches cannot
    // deadlock; SQLite has one writer at a time and no row locks.
    const locked =
      this.dialect === 'postgres'
        ? sql`, locked AS MATERIALIZED (SELECT id FROM workspaces WHERE id IN (SELECT id FROM wanted) ORDER BY id FOR UPDATE)`
        : sql``;
    const lockedOnly = this.dialect === 'postgres' ? sql`AND workspaces.id IN (SELECT id FROM locked)` : sql``;
    const { rows } = await sql<{ id: string }>`
      WITH wanted (id, n) AS (VALUES ${wanted}) ${locked}
      UPDATE workspaces SET submissions_used = workspaces.submissions_used + wanted.n
      FROM wanted
      WHERE workspaces.id = wanted.id ${lockedOnly} AND workspaces.submissions_used + wanted.n <= ${allowanceSql(this.plans)}
      RETURNING workspaces.id`.execute(trx);
    return new Set(rows.map((row) => row.id));
  }

  /** How many more the workspace may hold: counted, unless it was found full a moment ago. */
  private async heldRoom(trx: Transaction<DB>, workspaceId: string, now: number): Promise<number> {
    const until = this.fullUntil.get(workspaceId);
    if (until !== undefined && now < until) return 0;
    this.fullUntil.delete(workspaceId);
    return heldRoom(trx, this.dialect, workspaceId, this.plans);
  }

  /** Counts one submission: accepted while the allowance lasts, held past it. */
  private countOne(trx: Transaction<DB>, workspaceId: string, now: number): Promise<SubmissionStatus> {
    return countAgainstAllowance(trx, workspaceId, now, this.onAllowanceReached, this.plans);
  }
}

/** A submission of a batch with its status and new id. */
interface Kept {
  submission: SubmissionToStore;
  status: SubmissionStatus;
  id: string;
}

/** The rows of the batch's kept submissions. */
function submissionRowsOf(kept: Kept[], createdAt: number): IntakeSubmissionRow[] {
  return kept.map(({ submission, status, id }) => ({
    id,
    formId: submission.formId,
    workspaceId: submission.workspaceId,
    data: toJson(submission.data),
    status,
    // spam is never listed, so it needs no search text
    searchText: status === 'spam' ? '' : searchTextOf(submission.data),
    emailControls: submission.emailControls ? toJson(submission.emailControls) : null,
    // the filter's verdict, either way: why it is spam, or what it weighed before letting it in
    spamReasons: status === 'spam' || (submission.spamReasons?.length ?? 0) > 0 ? JSON.stringify(submission.spamReasons ?? []) : null,
    // new to the team until someone opens it (migration 0022's column defaults to read, for older rows)
    unread: 1,
    createdAt,
  }));
}

/** The delivery jobs of the accepted ones, and the spam ones' subscriptions (services/hooks.ts). */
function jobsOf(kept: Kept[], createdAt: number) {
  return kept.flatMap(({ submission, status, id }) => {
    const stored = { id, formId: submission.formId, data: submission.data, createdAt };
    if (status === 'accepted') return deliveryJobs(stored, submission.deliveries);
    return status === 'spam' ? hookJobs(submission.deliveries.hooks, 'submission.spam', { ...stored, at: createdAt }) : [];
  });
}

/** What the batch adds to its forms' counts of the day (the charts), a row per form. */
function dayCountsOf(rows: { formId: string; workspaceId: string; status: SubmissionStatus }[], createdAt: number): DailyCountTable[] {
  const day = dayOf(createdAt);
  const byForm = new Map<string, DailyCountTable>();
  for (const { formId, workspaceId, status } of rows) {
    let count = byForm.get(formId);
    if (!count) {
      count = { formId, workspaceId, day, accepted: 0, spam: 0, lastAt: createdAt };
      byForm.set(formId, count);
    }
    if (status === 'spam') count.spam++;
    else count.accepted++;
  }
  return [...byForm.values()];
}
