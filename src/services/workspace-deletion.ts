import type { Database } from '../db/database.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import { deleteIdleJobs, releaseFiles, removeReleasedFiles } from '../db/submission-deletion.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { ProblemError, validationError } from '../errors.js';
import type { FileStore } from '../files/file-store.js';
import type { TeamService } from './team.js';
import { type WorkspaceService, workspaceTarget } from './workspaces.js';
import type { AuditLog } from './audit-log.js';

/** Submissions per transaction, as a form's deletion takes them: each short, the event loop given back between them. */
const BATCH = 250;

/** What deleting a workspace takes with it, shown before its owner confirms. */
export interface WorkspaceDeletionCounts {
  forms: number;
  /** Every submission: in the inbox, spam and held. */
  submissions: number;
  spam: number;
  held: number;
  /** Uploaded files stored (dropped ones have no bytes) and their bytes. */
  files: number;
  fileBytes: number;
  /** People of the team other than the one deleting: they lose the workspace, not their accounts. */
  otherMembers: number;
  /** Invitations not yet accepted, revoked or expired: their links stop working. */
  pendingInvitations: number;
  /** Deliveries (emails, webhooks, Slack and chat messages) of its submissions waiting to go out: not sent. */
  pendingDeliveries: number;
}

/**
 * Deleting a workspace, by one of its owners, after a page that counts what goes with it and the
 * workspace's name typed again (docs/dashboard.md, "Workspaces and plans"). Its submissions go as
 * a form's do (in batches, their files released and removed from storage after each commit), with
 * their deliveries not under way; then the workspace, whose rows cascade (forms, templates,
 * secrets, team, invitations, counts, spam filter, digests, confirmations). Nothing of another
 * workspace is touched: every statement names this one. API tokens belong to people, not to
 * workspaces: they stay, and stop reaching this one.
 */
export class WorkspaceDeletion {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly team: TeamService,
    /** Where its files are removed; without it, the sweep removes them. */
    private readonly files: FileStore | null,
    private readonly audit: AuditLog,
  ) {}

  /** The workspace if the account is one of its owners: `not_found` outside it, `forbidden` for a member. */
  async deletable(userId: string, workspaceId: string): Promise<WorkspaceRow> {
    const workspace = await this.workspaces.getForMember(userId, workspaceId);
    if ((await this.team.roleOf(userId, workspaceId)) !== 'owner') {
      throw new ProblemError('forbidden', `Only the owners of ${workspace.name} can delete it.`);
    }
    return workspace;
  }

  /** What goes with the workspace, for one of its owners. */
  async counts(userId: string, workspaceId: string): Promise<{ workspace: WorkspaceRow; counts: WorkspaceDeletionCounts }> {
    const workspace = await this.deletable(userId, workspaceId);
    const db = this.database.db;
    const now = Date.now();
    const row = await db
      .selectNoFrom((eb) => {
        const count = () => eb.fn.countAll<number | string>().as('n');
        return [
          eb.selectFrom('forms').select(count).where('forms.workspaceId', '=', workspaceId).as('forms'),
          eb.selectFrom('submissions').select(count).where('submissions.workspaceId', '=', workspaceId).as('submissions'),
          eb.selectFrom('submissions').select(count).where('submissions.workspaceId', '=', workspaceId).where('submissions.status', '=', 'spam').as('spam'),
          eb.selectFrom('submissions').select(count).where('submissions.workspaceId', '=', workspaceId).where('submissions.status', '=', 'held').as('held'),
          eb
            .selectFrom('submissionFiles')
            .select(count)
            .where('submissionFiles.workspaceId', '=', workspaceId)
            .where('submissionFiles.storageKey', 'is not', null)
            .as('files'),
          eb
            .selectFrom('workspaceMembers')
            .select(count)
            .where('workspaceMembers.workspaceId', '=', workspaceId)
            .where('workspaceMembers.userId', '!=', userId)
            .as('others'),
          eb
            .selectFrom('invitations')
            .select(count)
            .where('invitations.workspaceId', '=', workspaceId)
            .where('invitations.acceptedAt', 'is', null)
            .where('invitations.revokedAt', 'is', null)
            .where('invitations.expiresAt', '>', now)
            .as('invitations'),
          eb
            .selectFrom('jobs')
            .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
            .select(count)
            .where('submissions.workspaceId', '=', workspaceId)
            .where('jobs.status', '=', 'pending')
            .as('deliveries'),
        ];
      })
      .executeTakeFirstOrThrow();
    return {
      workspace,
      counts: {
        forms: Number(row.forms),
        submissions: Number(row.submissions),
        spam: Number(row.spam),
        held: Number(row.held),
        files: Number(row.files),
        fileBytes: Number(workspace.fileBytes ?? 0),
        otherMembers: Number(row.others),
        pendingInvitations: Number(row.invitations),
        pendingDeliveries: Number(row.deliveries),
      },
    };
  }

  /**
   * Deletes the workspace when `typedName` is its name (else `validation_error` on `confirmName`,
   * and nothing changes). Should the process stop midway, the workspace is still there with fewer
   * submissions, and deleting it again finishes.
   */
  async delete(userId: string, workspaceId: string, typedName: string): Promise<{ workspace: WorkspaceRow; counts: WorkspaceDeletionCounts }> {
    const { workspace, counts } = await this.counts(userId, workspaceId);
    if (typedName !== workspace.name && typedName.trim() !== workspace.name.trim()) {
      throw validationError([`confirmName: type the workspace’s name exactly as it is written above, “${workspace.name}”, to delete it`]);
    }
    const slice = new LoopSlice();
    for (;;) {
      await slice.yieldIfDue();
      const batch = await this.database.transaction(async (trx) => {
        const ids = (await trx.selectFrom('submissions').select('id').where('workspaceId', '=', workspaceId).limit(BATCH).execute()).map((row) => row.id);
        if (ids.length === 0) return { found: 0, released: [] as string[] };
        const now = Date.now();
        await deleteIdleJobs(trx, ids, now);
        const keys = await releaseFiles(trx, { submissionIds: ids }, now);
        await trx.deleteFrom('submissions').where('id', 'in', ids).where('workspaceId', '=', workspaceId).execute();
        return { found: ids.length, released: keys };
      });
      await removeReleasedFiles(this.database, this.files, batch.released);
      if (batch.found < BATCH) break;
    }
    // what came in meanwhile goes with the workspace, as with a form: its files first (their rows do not cascade)
    const released = await this.database.transaction(async (trx) => {
      const now = Date.now();
      const forms = await trx.selectFrom('forms').select('id').where('workspaceId', '=', workspaceId).execute();
      const keys: string[] = [];
      for (const form of forms) keys.push(...(await releaseFiles(trx, { formId: form.id }, now)));
      await trx.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
      const details = { forms: counts.forms, submissions: counts.submissions, files: counts.files };
      await this.audit.record({ action: 'workspace.deleted', workspaceId, target: workspaceTarget(workspace), details }, trx);
      return keys;
    });
    await removeReleasedFiles(this.database, this.files, released);
    return { workspace, counts };
  }
}
