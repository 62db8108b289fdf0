import { sql, type Transaction } from 'kysely';
import { toJson, type Database } from '../db/database.js';
import { GroupCommit } from '../db/group-commit.js';
import type { DB } from '../db/schema/index.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { newId } from '../ids.js';
import { enqueueJobs } from '../jobs/outbox.js';
import { deliveryJobs, type DeliveryPlan } from '../jobs/submission-jobs.js';
import { PLANS, planLimits } from '../services/plans.js';
import { searchTextOf } from '../services/submissions.js';

/** A submission that passed the checks, ready to be written. */
export interface SubmissionToStore {
  formId: string;
  workspaceId: string;
  data: Record<string, unknown>;
  /** `_email.*` and `_replyto`, for the email step; null when none were sent. */
  emailControls: Record<string, string> | null;
  spam: boolean;
  /** The deliveries an accepted submission gets; held and spam ones get none. */
  deliveries: DeliveryPlan;
}

export interface StoredSubmission {
  id: string;
  createdAt: number;
  status: SubmissionStatus;
}

/** Called inside the transaction that holds the first submission past a workspace's allowance. */
export type AllowanceReached = (trx: Transaction<DB>, workspaceId: string) => Promise<void>;

// The plan's allowance as SQL, so the check reads the plan in the same row lock as the counter.
const ALLOWANCE = sql<number>`CASE plan ${sql.join(
  PLANS.map((plan) => sql`WHEN ${sql.lit(plan)} THEN ${sql.lit(planLimits(plan).submissions)}`),
  sql` `,
)} END`;

// Rows of one INSERT: 8 parameters each stays far below both dialects' limits on parameters.
const ROWS_PER_INSERT = 500;

/**
 * Writes submissions with group commit (db/group-commit.ts): the submissions that arrive while the
 * previous batch is being written go into one transaction, and each visitor is answered only once
 * theirs has committed.
 */
export class SubmissionWriter {
  private readonly batches: GroupCommit<SubmissionToStore, StoredSubmission>;

  constructor(
    database: Database,
    private readonly onAllowanceReached: AllowanceReached,
  ) {
    this.batches = new GroupCommit(database, (trx, batch) => this.insertBatch(trx, batch));
  }

  /** Resolves once the submission is committed (with the others of its batch). */
  store(submission: SubmissionToStore): Promise<StoredSubmission> {
    return this.batches.add(submission);
  }

  /**
   * Counts the batch against the allowances (spam never counts), then inserts its rows in one
   * statement and enqueues the deliveries of the accepted ones; in arrival order throughout.
   */
  private async insertBatch(trx: Transaction<DB>, batch: SubmissionToStore[]): Promise<StoredSubmission[]> {
    const createdAt = Date.now();
    const statuses = await this.count(trx, batch, createdAt);
    const rows = batch.map((submission, i) => {
      const status = statuses[i]!;
      return {
        id: newId(),
        formId: submission.formId,
        workspaceId: submission.workspaceId,
        data: toJson(submission.data),
        status,
        // spam is never listed, so it needs no search text
        searchText: status === 'spam' ? '' : searchTextOf(submission.data),
        emailControls: submission.emailControls ? toJson(submission.emailControls) : null,
        createdAt,
      };
    });
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      await trx.insertInto('submissions').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
    }
    const jobs = batch.flatMap((submission, i) => {
      const { id, status } = rows[i]!;
      return status === 'accepted' ? deliveryJobs({ id, formId: submission.formId, data: submission.data }, submission.deliveries) : [];
    });
    await enqueueJobs(trx, jobs);
    return rows.map(({ id, status }) => ({ id, createdAt, status }));
  }

  /**
   * Each submission's status. A workspace whose allowance holds all of its batch is counted with one
   * update; one near its limit is counted a submission at a time, so exactly the first ones fit.
   */
  private async count(trx: Transaction<DB>, batch: SubmissionToStore[], now: number): Promise<SubmissionStatus[]> {
    const statuses: SubmissionStatus[] = batch.map((submission) => (submission.spam ? 'spam' : 'accepted'));
    const byWorkspace = new Map<string, number[]>();
    batch.forEach((submission, i) => {
      if (submission.spam) return;
      const indexes = byWorkspace.get(submission.workspaceId);
      if (indexes) indexes.push(i);
      else byWorkspace.set(submission.workspaceId, [i]);
    });
    // NOTE: workspace rows are locked in one order (by id), so two instances' batches cannot deadlock.
    for (const [workspaceId, indexes] of [...byWorkspace].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const all = await trx
        .updateTable('workspaces')
        .set((eb) => ({ submissionsUsed: eb('submissionsUsed', '+', indexes.length) }))
        .where('id', '=', workspaceId)
        .where((eb) => eb(eb('submissionsUsed', '+', indexes.length), '<=', ALLOWANCE))
        .executeTakeFirst();
      if (all.numUpdatedRows > 0n) continue;
      for (const i of indexes) statuses[i] = await this.countOne(trx, workspaceId, now);
    }
    return statuses;
  }

  /** Counts one submission: accepted while the allowance lasts, held past it. */
  private async countOne(trx: Transaction<DB>, workspaceId: string, now: number): Promise<SubmissionStatus> {
    const counted = await trx
      .updateTable('workspaces')
      .set((eb) => ({ submissionsUsed: eb('submissionsUsed', '+', 1) }))
      .where('id', '=', workspaceId)
      .where('submissionsUsed', '<', ALLOWANCE)
      .executeTakeFirst();
    if (counted.numUpdatedRows > 0n) return 'accepted';
    await this.noteAllowanceReached(trx, workspaceId, now);
    return 'held';
  }

  private async noteAllowanceReached(trx: Transaction<DB>, workspaceId: string, now: number): Promise<void> {
    const first = await trx
      .updateTable('workspaces')
      .set({ quotaNotifiedAt: now })
      .where('id', '=', workspaceId)
      .where('quotaNotifiedAt', 'is', null)
      .executeTakeFirst();
    if (first.numUpdatedRows > 0n) await this.onAllowanceReached(trx, workspaceId);
  }
}
