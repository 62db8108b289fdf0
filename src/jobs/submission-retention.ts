import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import { deleteWithDeliveries, noDeliveryUnderWay, removeReleasedFiles } from '../db/submission-deletion.js';
import type { FileStore } from '../files/file-store.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { DAY_MS } from '../domain/time.js';
import { runHourly } from './hourly.js';

/**
 * Submissions per transaction: each delete is short, never one long one. NOTE: a batch is the least
 * the run holds the event loop for on SQLite: 500 with their deliveries took about 40 ms of CPU, 100
 * take 10 to 20 on a loaded machine (issue 38).
 */
export const RETENTION_BATCH = 100;
/** Batches that delete per run (100,000 submissions): a large backlog (a retention just set on an old form) goes over several hours. */
export const RETENTION_BATCHES_PER_RUN = 1000;
/** Forms read at a time from those that set a retention. */
const FORM_PAGE = 200;

export interface RetentionLimits {
  batchSize?: number;
  maxBatches?: number;
}

export interface RetentionResult {
  /** Submissions deleted. */
  deleted: number;
  /** Forms that had submissions deleted. */
  forms: number;
  /** Submissions past their retention left because a delivery of theirs was being tried: the next run takes them. */
  busy: number;
  /** The run stopped at its cap with submissions left, which the next run takes. */
  more: boolean;
}

/**
 * Deletes, for every form with `retentionDays`, its submissions (accepted, held and spam) older than
 * that many days, with their deliveries (db/submission-deletion.ts), in batches of its own
 * transaction. On PostgreSQL each batch locks its rows with SKIP LOCKED, so instances running this
 * at once take different rows instead of waiting on (or deleting twice) each other's.
 */
export async function applyRetention(
  database: Database,
  now = Date.now(),
  limits: RetentionLimits = {},
  /** Where the deleted submissions' files are removed after each batch; without it, the sweep removes them. */
  files: FileStore | null = null,
  /** Told, for the audit log, how many of a form's submissions went in this run (after its last batch). */
  deletedOf: (form: { id: string; workspaceId: string }, count: number) => Promise<void> = async () => {},
): Promise<RetentionResult> {
  const batchSize = limits.batchSize ?? RETENTION_BATCH;
  const maxBatches = limits.maxBatches ?? RETENTION_BATCHES_PER_RUN;
  const result: RetentionResult = { deleted: 0, forms: 0, busy: 0, more: false };
  // the event loop is given back between batches once the run has had its slice: a run of 100,000
  // deletions never holds the requests of the instance it runs in
  const slice = new LoopSlice();
  let batches = 0;
  for (let afterId = ''; ; ) {
    const forms = await database.db
      .selectFrom('forms')
      .select(['id', 'workspaceId', 'retentionDays'])
      .where('retentionDays', 'is not', null)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(FORM_PAGE)
      .execute();
    for (const form of forms) {
      const cutoff = now - form.retentionDays! * DAY_MS;
      let formDeleted = 0;
      for (;;) {
        if (batches >= maxBatches) {
          result.more = true;
          result.deleted += formDeleted;
          if (formDeleted > 0) result.forms++;
          if (formDeleted > 0) await deletedOf(form, formDeleted);
          return result;
        }
        await slice.yieldIfDue();
        const batch = await database.transaction(async (trx) => {
          const expired = trx
            .selectFrom('submissions')
            .select('submissions.id')
            .where('submissions.formId', '=', form.id)
            .where('submissions.status', 'in', ['accepted', 'held', 'spam'])
            .where('submissions.createdAt', '<', cutoff)
            .where((eb) => noDeliveryUnderWay(eb, now))
            .limit(batchSize);
          const ids = (await (database.dialect === 'postgres' ? expired.forUpdate().skipLocked() : expired).execute()).map((row) => row.id);
          return { found: ids.length, ...(await deleteWithDeliveries(trx, form.workspaceId, ids, now)) };
        });
        await removeReleasedFiles(database, files, batch.released);
        formDeleted += batch.deleted;
        result.busy += batch.busy;
        // only a batch that found rows counts against the cap: a form with nothing to delete costs one
        // look at its index, so every form that sets a retention is looked at in every run
        if (batch.found > 0) batches++;
        if (batch.found < batchSize) break;
      }
      result.deleted += formDeleted;
      if (formDeleted > 0) result.forms++;
      if (formDeleted > 0) await deletedOf(form, formDeleted);
    }
    if (forms.length < FORM_PAGE) return result;
    afterId = forms[forms.length - 1]!.id;
  }
}

/**
 * Applies the forms' retention at start and then hourly, in every instance (see applyRetention:
 * instances skip each other's rows). Logs what went, and counts it on /metrics. Returns what stops it.
 */
export function startSubmissionRetention(ctx: AppContext, log: Logger): () => void {
  return runHourly(
    async () => {
      const result = await applyRetention(ctx.database, Date.now(), {}, ctx.files, (form, count) =>
        ctx.audit.record({
          action: 'submissions.deleted',
          workspaceId: form.workspaceId,
          target: { kind: 'form', id: form.id },
          details: { count, by: 'retention' },
        }),
      );
      ctx.metrics?.submissionsDeleted('retention', result.deleted);
      if (result.deleted > 0 || result.busy > 0) log.info(result, 'deleted submissions past their form’s retention');
      else log.debug(result, 'no submissions past their form’s retention');
    },
    log,
    'submission retention failed',
  );
}
