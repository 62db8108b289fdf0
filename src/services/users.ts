import { isUniqueViolation, type Database, type Queryable } from '../db/database.js';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema/index.js';
import type { UserRow } from '../db/schema/user.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import type { Plan } from '../domain/plans.js';
import { ProblemError, validationError } from '../errors.js';
import { normaliseEmail } from '../domain/email-address.js';
import { newId } from '../ids.js';
import { hashPassword, needsRehash, passwordProblem, verifyPassword } from './passwords.js';
import { revokeAllTokens } from './tokens.js';
import { workspaceNameProblem, workspaceTarget } from './workspaces.js';
import type { AuditLog } from './audit-log.js';

/** An account as pages and routes see it (the dashboard does not reach the database's types). */
export type Account = UserRow;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The name of a workspace made without one being asked (`formgate users create`, the older first-account /signup page). */
export const DEFAULT_WORKSPACE_NAME = 'My workspace';
const NOT_THE_PASSWORD = 'is not the account’s password';

/** Whether the address can be an account's: what the dashboard and the CLI accept. */
export function emailProblem(email: string, field = 'email'): string | null {
  const normalised = normaliseEmail(email);
  if (normalised === '') return `${field}: enter an e-mail address`;
  // NOTE: the length first: EMAIL backtracks over every dot of a long domain (64 KB of them: seconds)
  if (normalised.length > 254 || !EMAIL.test(normalised)) return `${field}: "${email.slice(0, 100)}" is not an e-mail address`;
  return null;
}

export class UserService {
  constructor(
    private readonly database: Database,
    /** The plan of every new workspace (FORMGATE_DEFAULT_PLAN). */
    readonly defaultPlan: Plan,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Creates an account with its one workspace, in one transaction. The installation's first
   * account becomes its instance admin, whichever way it is made (sign-up or `users create`).
   */
  async createUser(
    email: string,
    password?: string,
    /** More to do in the same transaction (the first account's setup): if it throws, no account is made. */
    withinTransaction: (trx: Queryable, user: UserRow) => Promise<void> = async () => {},
    /** Its workspace's name, as the setup and sign-up pages ask it (the rename's rules: 1 to 128 characters). */
    workspaceName: string = DEFAULT_WORKSPACE_NAME,
  ): Promise<{ user: UserRow; workspace: WorkspaceRow }> {
    const { user, workspace } = await this.insertAccount(email, password, true, withinTransaction, workspaceName);
    return { user, workspace: workspace! };
  }

  /**
   * Creates the account of someone joining a team by invitation, without a workspace of its own:
   * the team's is where they are going, and a second "My workspace" beside it only confuses. They
   * can make one later. `join` runs in the same transaction: if it throws, no account is made.
   * No password: an account made by single sign-on (services/oidc-accounts.ts) joining by its rules.
   */
  async createInvitedUser(email: string, password: string | undefined, join: (trx: Queryable, user: UserRow) => Promise<void>): Promise<UserRow> {
    return (await this.insertAccount(email, password, false, join)).user;
  }

  private async insertAccount(
    email: string,
    password: string | undefined,
    ownWorkspace: boolean,
    withinTransaction: (trx: Queryable, user: UserRow) => Promise<void>,
    workspaceName: string = DEFAULT_WORKSPACE_NAME,
  ): Promise<{ user: UserRow; workspace: WorkspaceRow | null }> {
    const normalised = normaliseEmail(email);
    const nameProblem = ownWorkspace ? workspaceNameProblem(workspaceName) : null;
    const problems = [
      emailProblem(email),
      password === undefined ? null : passwordProblem(password),
      nameProblem === null ? null : `workspaceName: ${nameProblem.replace(/^name: /, '')}`,
    ].filter((p) => p !== null);
    if (problems.length) throw validationError(problems);
    const now = Date.now();
    const user: UserRow = {
      id: newId(),
      email: normalised,
      passwordHash: password ? await hashPassword(password) : null,
      isAdmin: 0,
      timeZone: null,
      disabledAt: null,
      totpSecret: null,
      totpLastStep: null,
      secondFactorAt: null,
      createdAt: now,
    };
    const workspace: WorkspaceRow = {
      id: newId(),
      name: workspaceName,
      plan: this.defaultPlan,
      ownerId: user.id,
      submissionsUsed: 0,
      quotaNotifiedAt: null,
      fileBytes: 0,
      fileBytesReserved: 0,
      requireTwoFactor: 0,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.database.transaction(async (trx) => {
        // NOTE: a key only one insert can take: of two first sign-ups at once, one is the admin.
        const claim = await trx
          .insertInto('settings')
          .values({ key: 'instance-admin', value: user.id, createdAt: now })
          .onConflict((oc) => oc.column('key').doNothing())
          .executeTakeFirst();
        user.isAdmin = Number(claim.numInsertedOrUpdatedRows ?? 0n) > 0 ? 1 : 0;
        await trx.insertInto('users').values(user).execute();
        if (ownWorkspace) {
          await trx.insertInto('workspaces').values(workspace).execute();
          await trx.insertInto('workspaceMembers').values({ workspaceId: workspace.id, userId: user.id, role: 'owner', createdAt: now }).execute();
        }
        // signing up, the new account acts for itself; `formgate users create` is the command's
        const newcomer = { userId: user.id, email: user.email };
        const target = { kind: 'account', id: user.id, name: user.email };
        await this.audit.record({ action: 'account.created', newcomer, target, details: { admin: user.isAdmin === 1 } }, trx);
        if (ownWorkspace)
          await this.audit.record({ action: 'workspace.created', newcomer, workspaceId: workspace.id, target: workspaceTarget(workspace) }, trx);
        await withinTransaction(trx, user);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ProblemError('conflict', `An account with the e-mail address ${normalised} already exists.`);
      throw error;
    }
    return { user, workspace: ownWorkspace ? workspace : null };
  }

  /**
   * The account if the address and password match, else null. An unknown address costs the same
   * time as a wrong password (a decoy hash is verified), so the answer tells nothing of who has an account.
   */
  async authenticate(email: string, password: string): Promise<UserRow | null> {
    const user = await this.findByEmail(email);
    const matches = await verifyPassword(password, user?.passwordHash ?? null);
    if (!user || !matches) return null;
    if (user.passwordHash && needsRehash(user.passwordHash)) await this.writePassword(user.id, password);
    return user;
  }

  /**
   * Asks a logged-in account for its password again before something a stolen session must not do
   * alone (creating an API token): a wrong one is `validation_error` naming `field`.
   */
  async confirmPassword(userId: string, password: string, field = 'currentPassword'): Promise<void> {
    if (!(await this.passwordMatches(userId, password))) throw validationError([`${field}: ${NOT_THE_PASSWORD}`]);
  }

  /**
   * Changes the password of a logged-in account, which must give its current one. The account's
   * unused reset links stop working with it: one asked for by whoever knew the old password (or
   * read the mailbox) must not undo the change. With `revokeTokens` its API tokens are revoked in the
   * same transaction: a token minted by whoever knew the old password stops too.
   */
  async changePassword(userId: string, current: string, next: string, options: { revokeTokens?: boolean } = {}): Promise<{ tokensRevoked: number }> {
    const problems: string[] = [];
    if (!(await this.passwordMatches(userId, current))) problems.push(`currentPassword: ${NOT_THE_PASSWORD}`);
    const rule = passwordProblem(next, 'newPassword');
    if (rule) problems.push(rule);
    if (problems.length) throw validationError(problems);
    const passwordHash = await hashPassword(next);
    return this.database.transaction(async (trx) => {
      const now = Date.now();
      await trx.updateTable('users').set({ passwordHash }).where('id', '=', userId).execute();
      await trx.updateTable('passwordResets').set({ usedAt: now }).where('userId', '=', userId).where('usedAt', 'is', null).execute();
      const tokensRevoked = options.revokeTokens ? await revokeAllTokens(trx, userId, now) : 0;
      await this.audit.record({ action: 'account.password_changed', target: { kind: 'account', id: userId }, details: { tokensRevoked } }, trx);
      return { tokensRevoked };
    });
  }

  private async passwordMatches(userId: string, password: string): Promise<boolean> {
    const user = await this.database.db.selectFrom('users').select('passwordHash').where('id', '=', userId).executeTakeFirstOrThrow();
    return verifyPassword(password, user.passwordHash);
  }

  /**
   * Sets a new password without the old one (a reset link proved the address). `alongside` runs in
   * the same transaction (using up the link, ending the sessions); the password is hashed before
   * it starts, so the transaction holds no connection while scrypt runs.
   */
  async setPassword(userId: string, password: string, alongside?: (trx: Transaction<DB>) => Promise<void>): Promise<void> {
    const rule = passwordProblem(password);
    if (rule) throw validationError([rule]);
    const passwordHash = await hashPassword(password);
    await this.database.transaction(async (trx) => {
      await alongside?.(trx);
      await trx.updateTable('users').set({ passwordHash }).where('id', '=', userId).execute();
    });
  }

  private async writePassword(userId: string, password: string, db: Queryable = this.database.db): Promise<void> {
    await db
      .updateTable('users')
      .set({ passwordHash: await hashPassword(password) })
      .where('id', '=', userId)
      .execute();
  }

  /** Whether the installation has an account yet: until it does, the first sign-up makes the instance admin. */
  async hasAnyAccount(): Promise<boolean> {
    const claim = await this.database.db.selectFrom('settings').select('key').where('key', '=', 'instance-admin').executeTakeFirst();
    return claim !== undefined;
  }

  async findById(id: string): Promise<UserRow | undefined> {
    return this.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    return this.database.db.selectFrom('users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
  }

  /** The account with this address, or a `not_found` problem naming it. */
  async requireByEmail(email: string): Promise<UserRow> {
    const user = await this.findByEmail(email);
    if (!user) throw new ProblemError('not_found', `No account has the e-mail address ${normaliseEmail(email)}.`);
    return user;
  }
}
