import { sql } from 'kysely';
import { fromJson, type Database } from '../db/database.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { searchPattern, searchTextMatches } from '../db/search.js';
import { deleteWithDeliveries, removeReleasedFiles } from '../db/submission-deletion.js';
import { deletedEventJobs } from '../jobs/hook-jobs.js';
import { enqueueJobs } from '../jobs/outbox.js';
import type { FileStore } from '../files/file-store.js';
import { erasureAddressProblem, valuesHoldAddress } from '../domain/address-match.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { validationError } from '../errors.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Access } from './forms.js';
import { type Keyset, newestAfter } from './pagination.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';
import { unlearn } from './spam-lessons.js';
import type { AuditLog } from './audit-log.js';

/** What erasing an address would delete: how many submissions of the workspace hold it. */
export interface ErasurePreview {
  /** The address looked for, trimmed and lower-cased. */
  email: string;
  submissions: number;
}

/** What erasing an address deleted. */
export interface ErasureResult {
  email: string;
  deleted: number;
  /** Submissions that hold it but had a delivery being tried at that moment: erasing again in a minute takes them. */
  remaining: number;
}

// Rows of the workspace looked at per query (only their ids, times and whether they may match), and
// matching rows whose fields are read at once: what the walk holds in memory.
const WINDOW = 1000;
const CHECKED = 100;
const STATUSES: SubmissionStatus[] = ['accepted', 'held', 'spam'];

/**
 * Erasing a person (issue 27): every submission of a workspace that holds an email address, in any
 * field or in the `_replyto` / `_email.*` controls, found and deleted for good with its deliveries,
 * whatever its state (inbox, held or spam: a request to erase covers every copy).
 */
export class ErasureService {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly audit: AuditLog,
    /** Counts what was erased on /metrics, when it is on. */
    private readonly metrics: Pick<Metrics, 'submissionsDeleted'> | null = null,
    /** Where the erased submissions' files are removed; without it, the sweep removes them. */
    private readonly files: FileStore | null = null,
  ) {}

  /** How many submissions erasing `email` would delete; nothing is changed. */
  async preview(userId: string, workspaceId: string, email: string, access: Access = {}): Promise<ErasurePreview> {
    const address = await this.checked(userId, workspaceId, email, access);
    let submissions = 0;
    for await (const ids of this.holding(workspaceId, address)) submissions += ids.length;
    return { email: address, submissions };
  }

  /** Deletes every submission of the workspace that holds `email`, with its deliveries, a batch per transaction. */
  async erase(userId: string, workspaceId: string, email: string, access: Access = {}): Promise<ErasureResult> {
    const address = await this.checked(userId, workspaceId, email, access);
    const result: ErasureResult = { email: address, deleted: 0, remaining: 0 };
    for await (const ids of this.holding(workspaceId, address)) {
      const batch = await this.database.transaction(async (trx) => {
        // what the spam filter learned from this person goes with them (docs/spam-filter.md)
        const taught = await trx
          .selectFrom('submissions')
          .select(['id', 'data', 'spamLesson'])
          .where('id', 'in', ids)
          .where('spamLesson', 'is not', null)
          .execute();
        await unlearn(trx, workspaceId, taught);
        const batch = await deleteWithDeliveries(trx, workspaceId, ids, Date.now());
        // a person's deletion: the platforms subscribed to it hear of it (ids only)
        await enqueueJobs(trx, await deletedEventJobs(trx, batch.going));
        return batch;
      });
      await removeReleasedFiles(this.database, this.files, batch.released);
      result.deleted += batch.deleted;
      result.remaining += batch.busy;
    }
    this.metrics?.submissionsDeleted('erasure', result.deleted);
    // NOTE: never the address: it is a visitor's, and the log outlives the erasure
    await this.audit.record({ action: 'submissions.erased', workspaceId, details: { deleted: result.deleted, remaining: result.remaining } });
    return result;
  }

  private async checked(userId: string, workspaceId: string, email: string, access: Access): Promise<string> {
    const workspace = await this.workspaces.getForMember(userId, workspaceId);
    if (access.api) requireUpgraded(workspace, this.workspaces.plans);
    const problem = erasureAddressProblem(email);
    if (problem) throw validationError([problem], 'The email address to erase was rejected.');
    return email.trim().toLowerCase();
  }

  /**
   * The ids of the workspace's submissions that hold `address`, a batch at a time. NOTE: a walk of
   * the workspace's own rows (its listing index, WINDOW at a time), not the search index: the
   * `_replyto` and `_email.*` controls, which often carry the submitter's address, are not in the
   * search text. Each window's query tells which rows may hold the address (the search text contains
   * it, or the row has controls); only those are read and checked exactly (domain/address-match.ts).
   * Linear in the workspace's rows, bounded in memory, never another workspace's rows; the event loop
   * is given back between queries once the walk has had its slice (domain/loop-slice.ts).
   */
  private async *holding(workspaceId: string, address: string): AsyncGenerator<string[]> {
    const { db, dialect } = this.database;
    const pattern = searchPattern(dialect, address);
    const slice = new LoopSlice();
    for (const status of STATUSES) {
      let after: Keyset | null = null;
      for (;;) {
        await slice.yieldIfDue();
        const window: { id: string; createdAt: number; maybe: number }[] = await newestAfter(
          db
            .selectFrom('submissions')
            .select(['submissions.id', 'submissions.createdAt'])
            .select(
              // spam keeps no search text (it is never searched): each of its rows is read and checked
              (status === 'spam'
                ? sql<number>`1`
                : sql<number>`CASE WHEN ${searchTextMatches(dialect, pattern, 'submissions')} OR submissions.email_controls IS NOT NULL THEN 1 ELSE 0 END`
              ).as('maybe'),
            )
            .where('submissions.workspaceId', '=', workspaceId)
            .where('submissions.status', '=', status),
          after,
          'submissions',
        )
          .limit(WINDOW)
          .execute();
        const maybe = window.filter((row) => Number(row.maybe) === 1).map((row) => row.id);
        for (let from = 0; from < maybe.length; from += CHECKED) {
          await slice.yieldIfDue();
          const rows = await db
            .selectFrom('submissions')
            .select(['id', 'data', 'emailControls'])
            .where('workspaceId', '=', workspaceId)
            .where('id', 'in', maybe.slice(from, from + CHECKED))
            .execute();
          const holds = rows.filter((row) => valuesHoldAddress(fromJson(row.data), address) || valuesHoldAddress(fromJson(row.emailControls), address));
          if (holds.length > 0) yield holds.map((row) => row.id);
        }
        if (window.length < WINDOW) break;
        const last: { id: string; createdAt: number } = window[window.length - 1]!;
        after = { createdAt: Number(last.createdAt), id: last.id };
      }
    }
  }
}
