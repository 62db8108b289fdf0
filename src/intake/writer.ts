import { sql, type Transaction } from 'kysely';
import { toJson, type Database } from '../db/database.js';
import type { DB } from '../db/schema/index.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { newId } from '../ids.js';
import { enqueueDeliveries, type DeliveryPlan } from '../jobs/submission-jobs.js';
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

interface Pending {
  submission: SubmissionToStore;
  resolve(stored: StoredSubmission): void;
  reject(error: unknown): void;
}

// The plan's allowance as SQL, so the check reads the plan in the same row lock as the counter.
const ALLOWANCE = sql<number>`CASE plan ${sql.join(
  PLANS.map((plan) => sql`WHEN ${sql.lit(plan)} THEN ${sql.lit(planLimits(plan).submissions)}`),
  sql` `,
)} END`;

/**
 * Writes submissions with group commit: every submission that arrives in one turn of the event
 * loop is written in one transaction, and each caller hears back only once it has committed. If a
 * batch fails, each of its submissions is tried alone, so one bad row cannot sink the others.
 */
export class SubmissionWriter {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly database: Database,
    private readonly onAllowanceReached: AllowanceReached,
  ) {}

  store(submission: SubmissionToStore): Promise<StoredSubmission> {
    return new Promise((resolve, reject) => {
      this.queue.push({ submission, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    try {
      const stored = await this.database.transaction(async (trx) => {
        const results: StoredSubmission[] = [];
        for (const pending of batch) results.push(await this.insert(trx, pending.submission));
        return results;
      });
      batch.forEach((pending, i) => pending.resolve(stored[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const pending of batch) {
        await this.database.transaction((trx) => this.insert(trx, pending.submission)).then(pending.resolve, pending.reject);
      }
    }
  }

  /** Counts the submission against the allowance (spam never counts) and inserts it. */
  private async insert(trx: Transaction<DB>, submission: SubmissionToStore): Promise<StoredSubmission> {
    const createdAt = Date.now();
    let status: SubmissionStatus = 'spam';
    if (!submission.spam) {
      const counted = await trx
        .updateTable('workspaces')
        .set((eb) => ({ submissionsUsed: eb('submissionsUsed', '+', 1) }))
        .where('id', '=', submission.workspaceId)
        .where('submissionsUsed', '<', ALLOWANCE)
        .executeTakeFirst();
      status = counted.numUpdatedRows > 0n ? 'accepted' : 'held';
      if (status === 'held') await this.noteAllowanceReached(trx, submission.workspaceId, createdAt);
    }
    const id = newId();
    await trx
      .insertInto('submissions')
      .values({
        id,
        formId: submission.formId,
        workspaceId: submission.workspaceId,
        data: toJson(submission.data),
        status,
        // spam is never listed, so it needs no search text
        searchText: status === 'spam' ? '' : searchTextOf(submission.data),
        emailControls: submission.emailControls ? toJson(submission.emailControls) : null,
        createdAt,
      })
      .execute();
    if (status === 'accepted') await enqueueDeliveries(trx, { id, formId: submission.formId, data: submission.data }, submission.deliveries);
    return { id, createdAt, status };
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
