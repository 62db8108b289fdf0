import { type Database, isUniqueViolation, type Queryable } from '../db/database.js';
import type { UserRow } from '../db/schema/user.js';
import { type MembershipGrant, membershipGrants } from '../domain/membership-rules.js';
import { workspaceNameForEmail } from '../domain/workspace-name.js';
import { ProblemError } from '../errors.js';
import type { PlanRules } from '../domain/plans.js';
import type { AuditLog } from './audit-log.js';
import type { ProviderIdentity } from './oidc-client.js';
import type { OidcSetup } from './oidc-settings.js';
import { lockWorkspace, requireSeat, seatsTaken } from './seats.js';
import type { UserService } from './users.js';

/** Why a person the provider signed in gets no account here. */
export type OidcRefusal = 'no_email' | 'unverified_email' | 'no_account' | 'not_matched' | 'disabled';

/** Which account the provider's person is, or why none. */
export type OidcResolution =
  | { kind: 'account'; user: UserRow; how: 'signed_in' | 'linked' | 'created' }
  | { kind: 'needs_password'; user: UserRow }
  | { kind: 'refused'; reason: OidcRefusal };

/**
 * The accounts of single sign-on (issue 43, item 3). A person is found by the issuer's `sub` once
 * linked, whatever the email says later. Before that, by email only when the provider says it is
 * verified: an account that has a password is linked once its password is given (the caller asks
 * it); one without (made by `formgate users create`) is linked at once, the provider having proved
 * the mailbox as a reset link would. With no account, one is made when the operator allows it: with
 * membership rules, only for a person a rule matches, joining the rules' workspaces without one of
 * its own (as an invited person); with none, with a workspace of its own (as open sign-up gives).
 * A pending invitation for the address lets it in either way, without a workspace of its own: the
 * person then accepts the invitation from its link.
 */
export class OidcAccounts {
  constructor(
    private readonly database: Database,
    private readonly users: UserService,
    private readonly plans: PlanRules,
    private readonly audit: AuditLog,
  ) {}

  async resolve(identity: ProviderIdentity, setup: OidcSetup): Promise<OidcResolution> {
    const linked = await this.linkedAccount(identity);
    if (linked) return linked.disabledAt === null ? { kind: 'account', user: linked, how: 'signed_in' } : { kind: 'refused', reason: 'disabled' };
    if (identity.email === null) return { kind: 'refused', reason: 'no_email' };
    if (!identity.emailVerified) return { kind: 'refused', reason: 'unverified_email' };
    const existing = await this.users.findByEmail(identity.email);
    if (existing?.passwordHash) return { kind: 'needs_password', user: existing };
    if (existing) {
      if (existing.disabledAt !== null) return { kind: 'refused', reason: 'disabled' };
      await this.link(existing, identity);
      return { kind: 'account', user: existing, how: 'linked' };
    }
    return this.create(identity, setup);
  }

  /** Remembers that the provider's person is this account: later sign-ins follow the `sub`. */
  async link(user: Pick<UserRow, 'id' | 'email'>, identity: ProviderIdentity, db: Queryable = this.database.db): Promise<void> {
    const now = Date.now();
    try {
      await db
        .insertInto('oidcLinks')
        .values({ issuer: identity.issuer, subject: identity.subject, userId: user.id, email: identity.email, createdAt: now, lastSignInAt: now })
        .execute();
    } catch (error) {
      // the same link made by a second tab at once
      if (isUniqueViolation(error) && (await this.linkedId(identity, db)) === user.id) return;
      throw error;
    }
    await this.audit.record(
      {
        action: 'sso.linked',
        actorUserId: user.id,
        actorEmail: user.email,
        target: { kind: 'account', id: user.id, name: user.email },
        details: { issuer: identity.issuer },
      },
      db,
    );
  }

  /**
   * Applies the membership rules at a sign-in: adds the account to the workspaces they name (as
   * member, or owner when a rule says so, raising a member to owner), never removes it or lowers a
   * role. A workspace gone or full is skipped. Answers the places it added or raised.
   */
  async applyRules(user: Pick<UserRow, 'id' | 'email'>, identity: ProviderIdentity, setup: OidcSetup): Promise<MembershipGrant[]> {
    return this.applyGrants(user, this.grantsFor(identity, setup));
  }

  /** Applies grants worked out earlier (at the callback, before the link's password was given). */
  async applyGrants(user: Pick<UserRow, 'id' | 'email'>, grants: MembershipGrant[]): Promise<MembershipGrant[]> {
    if (grants.length === 0) return [];
    return this.database.transaction((trx) => this.grant(trx, user, grants));
  }

  /** What the membership rules grant the person (a domain rule reads a verified email only). */
  grantsFor(identity: ProviderIdentity, setup: OidcSetup): MembershipGrant[] {
    return membershipGrants(setup.rules, { claims: identity.claims, verifiedEmail: identity.emailVerified ? identity.email : null });
  }

  private async create(identity: ProviderIdentity, setup: OidcSetup): Promise<OidcResolution> {
    const email = identity.email!;
    // an invitation lets its address in, as it does on the sign-up page: the person accepts it from its link
    const invited = await this.invited(email);
    if (!setup.signup && !invited) return { kind: 'refused', reason: 'no_account' };
    const grants = this.grantsFor(identity, setup);
    if (setup.rules.length > 0 && grants.length === 0 && !invited) return { kind: 'refused', reason: 'not_matched' };
    const made = async (trx: Queryable, user: UserRow) => {
      await this.link(user, identity, trx);
      await this.grant(trx, user, grants);
      await this.audit.record(
        { action: 'sso.account_created', actorUserId: user.id, actorEmail: user.email, target: { kind: 'account', id: user.id, name: user.email } },
        trx,
      );
    };
    try {
      const user =
        grants.length > 0 || invited
          ? await this.users.createInvitedUser(email, undefined, made)
          : (await this.users.createUser(email, undefined, made, workspaceNameForEmail(email))).user;
      return { kind: 'account', user, how: 'created' };
    } catch (error) {
      // made at the same moment by another tab: its account
      if (!(error instanceof ProblemError && error.code === 'conflict')) throw error;
      return this.resolve(identity, setup);
    }
  }

  private async grant(trx: Queryable, user: Pick<UserRow, 'id' | 'email'>, grants: MembershipGrant[]): Promise<MembershipGrant[]> {
    const done: MembershipGrant[] = [];
    for (const grant of grants) {
      const exists = await trx.selectFrom('workspaces').select('id').where('id', '=', grant.workspaceId).executeTakeFirst();
      if (!exists) continue;
      const workspace = await lockWorkspace(trx, grant.workspaceId);
      const member = await trx
        .selectFrom('workspaceMembers')
        .select('role')
        .where('workspaceId', '=', workspace.id)
        .where('userId', '=', user.id)
        .executeTakeFirst();
      if (member && (member.role === 'owner' || grant.role === 'member')) continue;
      if (member) {
        await trx.updateTable('workspaceMembers').set({ role: 'owner' }).where('workspaceId', '=', workspace.id).where('userId', '=', user.id).execute();
      } else {
        try {
          requireSeat(workspace, await seatsTaken(trx, workspace.id, user.email), this.plans);
        } catch (error) {
          if (error instanceof ProblemError && error.code === 'quota_exceeded') continue;
          throw error;
        }
        await trx.insertInto('workspaceMembers').values({ workspaceId: workspace.id, userId: user.id, role: grant.role, createdAt: Date.now() }).execute();
      }
      const action = member ? 'member.role_changed' : 'member.added';
      await this.audit.record(
        {
          action,
          workspaceId: workspace.id,
          actorUserId: user.id,
          actorEmail: user.email,
          target: { kind: 'account', id: user.id, name: user.email },
          details: { role: grant.role, by: 'single sign-on rule' },
        },
        trx,
      );
      done.push(grant);
    }
    return done;
  }

  /** Whether a pending invitation to some workspace has this address. */
  private async invited(email: string): Promise<boolean> {
    const row = await this.database.db
      .selectFrom('invitations')
      .select('id')
      .where('email', '=', email)
      .where('acceptedAt', 'is', null)
      .where('revokedAt', 'is', null)
      .where('expiresAt', '>', Date.now())
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The linked account, its last sign-in noted. */
  private async linkedAccount(identity: ProviderIdentity): Promise<UserRow | undefined> {
    const userId = await this.linkedId(identity, this.database.db);
    if (userId === undefined) return undefined;
    await this.database.db
      .updateTable('oidcLinks')
      .set({ lastSignInAt: Date.now() })
      .where('issuer', '=', identity.issuer)
      .where('subject', '=', identity.subject)
      .execute();
    return this.database.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  }

  /** The account the provider's person is linked to, if any. */
  async linkedId(identity: Pick<ProviderIdentity, 'issuer' | 'subject'>, db: Queryable = this.database.db): Promise<string | undefined> {
    const row = await db
      .selectFrom('oidcLinks')
      .select('userId')
      .where('issuer', '=', identity.issuer)
      .where('subject', '=', identity.subject)
      .executeTakeFirst();
    return row?.userId;
  }
}
