import type { Database } from '../db/database.js';
import { releaseFiles, removeReleasedFiles } from '../db/submission-deletion.js';
import type { FileStore } from '../files/file-store.js';
import { ProblemError } from '../errors.js';
import type { AuditLog } from './audit-log.js';
import { workspaceTarget } from './workspaces.js';

/** A workspace of an account the admin is about to disable or delete, and what becomes of it. */
export interface WorkspaceFate {
  id: string;
  name: string;
  forms: number;
  submissions: number;
  /** Other people in its team (members, and owners when shared). */
  others: number;
}

/** What deleting an account takes with it, shown before the admin confirms. */
export interface AccountFate {
  id: string;
  email: string;
  disabledAt: number | null;
  /** Workspaces it alone owns: deleted with their forms, submissions and files when the account is. */
  deleted: WorkspaceFate[];
  /** Workspaces other owners share, or that it is only a member of: they stay, without it. */
  kept: WorkspaceFate[];
}

/** An account as the audit log names it. */
function accountTarget(account: { id: string; email: string }) {
  return { kind: 'account', id: account.id, name: account.email };
}

const NOT_AN_ADMIN = 'The instance admin’s own account cannot be disabled or deleted.';

/**
 * The instance admin's changes to other people's accounts: disabling one (it cannot log in, its
 * sessions end and its API tokens are refused at once; its workspaces keep receiving submissions)
 * and deleting one (the workspaces it alone owns go with it). The admin account itself is never a target.
 */
export class AdminAccounts {
  constructor(
    private readonly database: Database,
    private readonly files: FileStore | null,
    private readonly audit: AuditLog,
  ) {}

  async fate(accountId: string): Promise<AccountFate> {
    const account = await this.target(accountId);
    const db = this.database.db;
    const rows = await db
      .selectFrom('workspaceMembers as mine')
      .innerJoin('workspaces', 'workspaces.id', 'mine.workspaceId')
      .select(['workspaces.id', 'workspaces.name', 'mine.role'])
      .select((eb) => [
        eb
          .selectFrom('workspaceMembers as other')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('other.workspaceId', '=', 'workspaces.id')
          .where('other.userId', '!=', accountId)
          .where('other.role', '=', 'owner')
          .as('otherOwners'),
        eb
          .selectFrom('workspaceMembers as other')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('other.workspaceId', '=', 'workspaces.id')
          .where('other.userId', '!=', accountId)
          .as('others'),
        eb.selectFrom('forms').select(eb.fn.countAll<number | string>().as('n')).whereRef('forms.workspaceId', '=', 'workspaces.id').as('forms'),
        eb
          .selectFrom('submissions')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('submissions.workspaceId', '=', 'workspaces.id')
          .as('submissions'),
      ])
      .where('mine.userId', '=', accountId)
      .orderBy('workspaces.createdAt')
      .execute();
    const fates = rows.map((r) => ({
      fate: {
        id: r.id,
        name: r.name,
        forms: Number(r.forms ?? 0),
        submissions: Number(r.submissions ?? 0),
        others: Number(r.others ?? 0),
      },
      alone: r.role === 'owner' && Number(r.otherOwners ?? 0) === 0,
    }));
    return {
      id: account.id,
      email: account.email,
      disabledAt: account.disabledAt,
      deleted: fates.filter((f) => f.alone).map((f) => f.fate),
      kept: fates.filter((f) => !f.alone).map((f) => f.fate),
    };
  }

  /** Disables (or enables again) the account; disabling ends its sessions and refuses its tokens at once. */
  async setDisabled(accountId: string, disabled: boolean): Promise<{ email: string; changed: boolean }> {
    const account = await this.target(accountId);
    if ((account.disabledAt !== null) === disabled) return { email: account.email, changed: false };
    await this.database.transaction(async (trx) => {
      await trx
        .updateTable('users')
        .set({ disabledAt: disabled ? Date.now() : null })
        .where('id', '=', accountId)
        .execute();
      if (disabled) await trx.deleteFrom('sessions').where('userId', '=', accountId).execute();
      // NOTE: a no-op write to its tokens: the tokens' change count moves, so a token kept in memory is read again
      await trx
        .updateTable('tokens')
        .set((eb) => ({ revokedAt: eb.ref('revokedAt') }))
        .where('userId', '=', accountId)
        .execute();
      await this.audit.record({ action: disabled ? 'account.disabled' : 'account.enabled', target: accountTarget(account) }, trx);
    });
    return { email: account.email, changed: true };
  }

  /**
   * Deletes the account. The workspaces it alone owns go with it (forms, submissions, files:
   * their objects are removed after the commit); a shared workspace stays with its other owners
   * (one of them becomes its creator of record); its memberships, sessions and tokens go.
   */
  async delete(accountId: string): Promise<{ email: string; workspacesDeleted: number }> {
    const fate = await this.fate(accountId);
    const released = await this.database.transaction(async (trx) => {
      const keys: string[] = [];
      const now = Date.now();
      for (const workspace of fate.deleted) {
        const forms = await trx.selectFrom('forms').select('id').where('workspaceId', '=', workspace.id).execute();
        for (const form of forms) keys.push(...(await releaseFiles(trx, { formId: form.id }, now)));
        await trx.deleteFrom('workspaces').where('id', '=', workspace.id).execute();
        const details = { forms: workspace.forms, submissions: workspace.submissions, with: 'account' };
        await this.audit.record({ action: 'workspace.deleted', workspaceId: workspace.id, target: workspaceTarget(workspace), details }, trx);
      }
      for (const workspace of fate.kept) {
        const heir = await trx
          .selectFrom('workspaceMembers')
          .select('userId')
          .where('workspaceId', '=', workspace.id)
          .where('userId', '!=', accountId)
          .orderBy((eb) => eb.case().when('role', '=', 'owner').then(0).else(1).end())
          .orderBy('createdAt')
          .executeTakeFirst();
        if (heir) await trx.updateTable('workspaces').set({ ownerId: heir.userId }).where('id', '=', workspace.id).where('ownerId', '=', accountId).execute();
      }
      await trx.deleteFrom('users').where('id', '=', accountId).execute();
      await this.audit.record({ action: 'account.deleted', target: accountTarget(fate), details: { workspacesDeleted: fate.deleted.length } }, trx);
      return keys;
    });
    await removeReleasedFiles(this.database, this.files, released);
    return { email: fate.email, workspacesDeleted: fate.deleted.length };
  }

  private async target(accountId: string) {
    const account = await this.database.db.selectFrom('users').select(['id', 'email', 'isAdmin', 'disabledAt']).where('id', '=', accountId).executeTakeFirst();
    if (!account) throw new ProblemError('not_found', `Account ${accountId} was not found.`);
    if (account.isAdmin === 1) throw new ProblemError('conflict', NOT_AN_ADMIN);
    return account;
  }
}
