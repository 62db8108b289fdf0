// The files of submissions (issue 28), as the API, the dashboard and the exports read them: the rows
// of submission_files, and one file's bytes for a download with its access check. Writing them is
// the intake's; deleting them, the deletions'.
import type { Readable } from 'node:stream';
import type { Database } from '../db/database.js';
import { PreparedListQuery } from '../db/prepared-list-query.js';
import type { SubmissionFileRow } from '../db/schema/submission-file.js';
import { PlanRules } from '../domain/plans.js';
import { withoutHiddenCharacters } from '../domain/uploads.js';
import type { FileStore } from '../files/file-store.js';
import { ProblemError } from '../errors.js';
import { upgradeRequired } from './workspaces.js';
import type { AuditLog } from './audit-log.js';

/** A file of a submission as a page lists it: stored (downloadable) or dropped with why. */
export type SubmissionFile = Pick<SubmissionFileRow, 'id' | 'submissionId' | 'field' | 'position' | 'name' | 'type' | 'size' | 'droppedReason'> & {
  stored: boolean;
};

/** A file to send: its name and declared type (for the headers), its size and its bytes. */
export interface FileDownload {
  id: string;
  name: string;
  type: string;
  size: number;
  body: Readable;
}

/** Who may download: a member of the file's workspace (through the API: accepted submissions of an upgraded workspace only), or anyone holding a verified signed link. */
export type DownloadAccess = { userId: string; api: boolean; submissionId?: string } | { signed: true };

// the most submissions whose files one call reads: a page of the inbox or of an export's batch
const IDS_PER_QUERY = 500;

export class SubmissionFiles {
  // The inbox's marker on every page: built once per size of the page's list of ids.
  private readonly storedRows = new PreparedListQuery((db, _: Record<string, never>, ids) =>
    db
      .selectFrom('submissionFiles')
      .select(['submissionId', (eb) => eb.fn.countAll<number | string>().as('count')])
      .where('submissionId', 'in', ids)
      .where('storageKey', 'is not', null)
      .groupBy('submissionId'),
  );

  constructor(
    private readonly database: Database,
    private readonly store: FileStore,
    private readonly audit: AuditLog,
    private readonly plans: PlanRules = PlanRules.fixed('hosting'),
  ) {}

  /** The files of these submissions (already checked by the caller), by submission, in the order sent. */
  async filesOf(submissionIds: readonly string[]): Promise<Map<string, SubmissionFile[]>> {
    const bySubmission = new Map<string, SubmissionFile[]>();
    for (let i = 0; i < submissionIds.length; i += IDS_PER_QUERY) {
      const ids = submissionIds.slice(i, i + IDS_PER_QUERY);
      const rows = await this.database.db
        .selectFrom('submissionFiles')
        .select(['id', 'submissionId', 'field', 'position', 'name', 'type', 'size', 'storageKey', 'droppedReason'])
        .where('submissionId', 'in', ids)
        .orderBy('submissionId')
        .orderBy('position')
        .execute();
      for (const { storageKey, ...row } of rows) {
        const list = bySubmission.get(row.submissionId) ?? [];
        // a name stored before names were cleaned of bidirectional controls is cleaned as it leaves (issue 38, item 17)
        list.push({ ...row, name: withoutHiddenCharacters(row.name), size: Number(row.size), stored: storageKey !== null });
        bySubmission.set(row.submissionId, list);
      }
    }
    return bySubmission;
  }

  /** How many stored files each of these submissions (already checked by the caller) has: the inbox's marker. */
  async storedCounts(submissionIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (let i = 0; i < submissionIds.length; i += IDS_PER_QUERY) {
      const rows = await this.storedRows.execute(this.database.db, {}, submissionIds.slice(i, i + IDS_PER_QUERY));
      for (const row of rows) counts.set(row.submissionId, Number(row.count));
    }
    return counts;
  }

  /**
   * One stored file's bytes for `access`; `not_found` for a file that is not there, was dropped,
   * whose object is missing, or that the caller may not read: nothing tells these apart.
   */
  async download(fileId: string, access: DownloadAccess): Promise<FileDownload> {
    const notFound = new ProblemError('not_found', `File ${fileId} was not found.`);
    let query = this.database.db
      .selectFrom('submissionFiles')
      .innerJoin('submissions', 'submissions.id', 'submissionFiles.submissionId')
      .innerJoin('workspaces', 'workspaces.id', 'submissionFiles.workspaceId')
      .select([
        'submissionFiles.id',
        'submissionFiles.name',
        'submissionFiles.type',
        'submissionFiles.storageKey',
        'submissionFiles.workspaceId',
        'submissionFiles.submissionId',
        'submissions.status',
        'workspaces.plan',
      ])
      .where('submissionFiles.id', '=', fileId);
    if ('userId' in access) {
      query = query
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissionFiles.workspaceId')
        .where('workspaceMembers.userId', '=', access.userId);
      if (access.submissionId !== undefined) query = query.where('submissionFiles.submissionId', '=', access.submissionId);
    }
    const file = await query.executeTakeFirst();
    if (!file || file.storageKey === null) throw notFound;
    if ('userId' in access && access.api) {
      if (!this.plans.isUpgraded(file.plan)) throw upgradeRequired(file.workspaceId);
      // as the API's lists: spam and held submissions are not the API's
      if (file.status !== 'accepted') throw notFound;
    }
    const stored = await this.store.read(file.storageKey);
    if (!stored) throw notFound;
    // recorded before a byte goes out, never the file's name (a visitor chose it)
    const details = { fileId: file.id, signedLink: 'signed' in access };
    await this.audit
      .record({ action: 'submissions.file_downloaded', workspaceId: file.workspaceId, target: { kind: 'submission', id: file.submissionId }, details })
      .catch((error: unknown) => {
        stored.body.destroy();
        throw error;
      });
    return { id: file.id, name: withoutHiddenCharacters(file.name), type: file.type, size: stored.size, body: stored.body };
  }

  /** Bytes of files the workspace keeps, against its plan's allowance (shown with the other allowances). */
  async storedBytes(workspaceId: string): Promise<number> {
    const row = await this.database.db.selectFrom('workspaces').select('fileBytes').where('id', '=', workspaceId).executeTakeFirst();
    return Number(row?.fileBytes ?? 0);
  }
}
