import type { Config } from '../config/config.js';
import type { Database, Queryable } from '../db/database.js';
import type { InvitationRow } from '../db/schema/invitation.js';
import type { UserRow } from '../db/schema/user.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import type { AuditLog } from './audit-log.js';
import { enqueueAccountEmail } from './mail-outbox.js';
import { invitationEmail } from '../mail/invitation-mail.js';
import { hashSecret, newSecret } from './secrets.js';
import { lockWorkspace, requireSeat, seatsTaken } from './seats.js';
import type { TeamService } from './team.js';
import { emailProblem, type UserService } from './users.js';
import { normaliseEmail } from '../domain/email-address.js';
import { isVouchedFor } from '../domain/workspace-trust.js';
import { memberAddresses } from './recipient-states.js';

/** A pending (or past) invitation, as the members page shows it. */
export type Invitation = InvitationRow;

/** How long an emailed invitation can be accepted. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** Each invitation sends an email: a bound, so an owner's account cannot be used to mail strangers in bulk. */
export const INVITATIONS_PER_HOUR = 20;
/**
 * Invitations the whole instance sends in an hour for workspaces its admin has not vouched for, while
 * sign-up is open: fresh sign-ups cannot add the per-workspace bound up (issue 38, item 10's sibling).
 */
export const INVITATIONS_PER_INSTANCE_HOUR = 100;
const HOUR_MS = 3_600_000;

export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';

/** What an invitation's link shows: where it leads, who sent it, and whether it still works. */
export interface InvitationView {
  invitation: InvitationRow;
  state: InvitationState;
  workspaceName: string;
  inviterEmail: string;
}

/** Invitations to a workspace's team by email: a link that works once, for one address, for 7 days. */
export class InvitationService {
  constructor(
    private readonly database: Database,
    private readonly users: UserService,
    private readonly team: TeamService,
    // NOTE: read at each invitation: `serve` sets the public URL once it has bound its port.
    private readonly config: Pick<Config, 'publicUrl'> & Partial<Pick<Config, 'signup'>>,
    private readonly audit: AuditLog,
  ) {}

  /**
   * An owner invites an address: a pending invitation takes a seat of the plan's member limit.
   * Inviting an address again replaces its pending invitation (a fresh link, the old one stops working).
   */
  async invite(userId: string, workspaceId: string, rawEmail: string): Promise<{ invitation: InvitationRow; replaced: boolean; link: string }> {
    const problem = emailProblem(rawEmail);
    if (problem) throw validationError([problem]);
    const email = normaliseEmail(rawEmail);
    return this.database.transaction(async (trx) => {
      const workspace = await this.team.requireOwner(userId, workspaceId, trx);
      await lockWorkspace(trx, workspaceId);
      if ((await memberAddresses(trx, workspaceId, [email])).length > 0)
        throw new ProblemError('conflict', `${email} is already a member of ${workspace.name}.`);
      requireSeat(workspace, await seatsTaken(trx, workspaceId, email), this.team.plans);
      const now = Date.now();
      await requireInvitationAllowance(trx, workspaceId, now);
      if (this.config.signup === 'open') await requireInstanceInvitationAllowance(trx, workspace, now);
      const replaced = await trx
        .updateTable('invitations')
        .set({ revokedAt: now })
        .where('workspaceId', '=', workspaceId)
        .where('email', '=', email)
        .where('acceptedAt', 'is', null)
        .where('revokedAt', 'is', null)
        .where('expiresAt', '>', now)
        .executeTakeFirst();
      const secret = newSecret();
      const invitation: InvitationRow = {
        id: newId(),
        workspaceId,
        email,
        tokenHash: hashSecret(secret),
        invitedBy: userId,
        createdAt: now,
        expiresAt: now + INVITATION_LIFETIME_MS,
        acceptedAt: null,
        revokedAt: null,
      };
      await trx.insertInto('invitations').values(invitation).execute();
      const inviter = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
      const link = `${this.config.publicUrl}/invitations/${secret}`;
      await enqueueAccountEmail(trx, email, invitationEmail(workspace, inviter.email, invitation, link));
      await this.audit.record({ action: 'member.invited', workspaceId, target: { kind: 'invitation', id: invitation.id, name: email } }, trx);
      // the link is shown once to the owner too, to pass on where mail is not set up or slow
      return { invitation, replaced: Number(replaced.numUpdatedRows) > 0, link };
    });
  }

  /** The workspace's invitations that can still be accepted, newest first, for any member. */
  async listPending(userId: string, workspaceId: string): Promise<InvitationRow[]> {
    await this.team.roleOf(userId, workspaceId);
    return this.database.db
      .selectFrom('invitations')
      .selectAll()
      .where('workspaceId', '=', workspaceId)
      .where('acceptedAt', 'is', null)
      .where('revokedAt', 'is', null)
      .where('expiresAt', '>', Date.now())
      .orderBy('createdAt', 'desc')
      .execute();
  }

  /** One of the workspace's pending invitations, for its owners; `not_found` once accepted, revoked or expired. */
  async getPending(userId: string, workspaceId: string, invitationId: string): Promise<Invitation> {
    await this.team.requireOwner(userId, workspaceId);
    const pending = (await this.listPending(userId, workspaceId)).find((i) => i.id === invitationId);
    if (!pending) throw new ProblemError('not_found', 'That invitation was not found, or it was accepted, revoked or expired already.');
    return pending;
  }

  /** An owner withdraws a pending invitation: its link stops working and its seat is free again. */
  async revoke(userId: string, workspaceId: string, invitationId: string): Promise<InvitationRow> {
    const pending = await this.getPending(userId, workspaceId, invitationId);
    await this.database.transaction(async (trx) => {
      await trx.updateTable('invitations').set({ revokedAt: Date.now() }).where('id', '=', invitationId).where('revokedAt', 'is', null).execute();
      await this.audit.record({ action: 'member.invitation_revoked', workspaceId, target: { kind: 'invitation', id: pending.id, name: pending.email } }, trx);
    });
    return pending;
  }

  /** The invitation behind a link's secret, in whatever state it is; null for a link that never was. */
  async open(secret: string, db: Queryable = this.database.db): Promise<InvitationView | null> {
    if (!SECRET_SHAPE.test(secret)) return null;
    const row = await db
      .selectFrom('invitations')
      .innerJoin('workspaces', 'workspaces.id', 'invitations.workspaceId')
      .innerJoin('users', 'users.id', 'invitations.invitedBy')
      .selectAll('invitations')
      .select(['workspaces.name as workspaceName', 'users.email as inviterEmail'])
      .where('invitations.tokenHash', '=', hashSecret(secret))
      .executeTakeFirst();
    if (!row) return null;
    const { workspaceName, inviterEmail, ...invitation } = row;
    return { invitation, state: stateOf(invitation), workspaceName, inviterEmail };
  }

  /** The invited account joins the workspace as a member: once, before the link expires, within the plan's limit. */
  async accept(secret: string, user: Pick<UserRow, 'id' | 'email'>): Promise<WorkspaceRow> {
    return this.database.transaction((trx) => this.join(trx, secret, user));
  }

  /**
   * Creates the invited address's account and joins it to the workspace, in one transaction: a
   * refused invitation makes no account. The address is the invitation's; another is refused.
   */
  async signUp(secret: string, email: string, password: string): Promise<{ user: UserRow; workspace: WorkspaceRow }> {
    const view = await this.open(secret);
    if (!view) throw new ProblemError('not_found', 'This invitation link is not valid.');
    if (normaliseEmail(email) !== view.invitation.email) {
      throw validationError([`email: this invitation is for ${view.invitation.email}; create the account with that address`]);
    }
    let joined: WorkspaceRow | undefined;
    const user = await this.users.createInvitedUser(email, password, async (trx, created) => {
      joined = await this.join(trx, secret, created);
    });
    return { user, workspace: joined! };
  }

  private async join(trx: Queryable, secret: string, user: Pick<UserRow, 'id' | 'email'>): Promise<WorkspaceRow> {
    const found = await this.open(secret, trx);
    if (!found) throw new ProblemError('not_found', 'This invitation link is not valid.');
    const workspace = await lockWorkspace(trx, found.invitation.workspaceId);
    // read again under the lock: of two tabs accepting at once, one joins
    const view = (await this.open(secret, trx))!;
    const { invitation } = view;
    if (view.state !== 'pending') throw new ProblemError('conflict', refusal(view.state));
    if (normaliseEmail(user.email) !== invitation.email) {
      throw new ProblemError('forbidden', `This invitation is for ${invitation.email}; you are logged in as ${user.email}.`);
    }
    const member = await trx
      .selectFrom('workspaceMembers')
      .select('role')
      .where('workspaceId', '=', workspace.id)
      .where('userId', '=', user.id)
      .executeTakeFirst();
    if (!member) {
      requireSeat(workspace, await seatsTaken(trx, workspace.id, invitation.email), this.team.plans);
      await trx.insertInto('workspaceMembers').values({ workspaceId: workspace.id, userId: user.id, role: 'member', createdAt: Date.now() }).execute();
    }
    await trx.updateTable('invitations').set({ acceptedAt: Date.now() }).where('id', '=', invitation.id).execute();
    await this.audit.record(
      {
        action: 'member.joined',
        workspaceId: workspace.id,
        actorUserId: user.id,
        actorEmail: user.email,
        target: { kind: 'account', id: user.id, name: user.email },
        details: { invitationId: invitation.id },
      },
      trx,
    );
    return workspace;
  }
}

/** Refuses a workspace's invitation past INVITATIONS_PER_HOUR in the last hour, saying when the next one may go. */
async function requireInvitationAllowance(trx: Queryable, workspaceId: string, now: number): Promise<void> {
  const recent = await trx
    .selectFrom('invitations')
    .select('createdAt')
    .where('workspaceId', '=', workspaceId)
    .where('createdAt', '>', now - HOUR_MS)
    .orderBy('createdAt', 'desc')
    .limit(INVITATIONS_PER_HOUR)
    .execute();
  if (recent.length < INVITATIONS_PER_HOUR) return;
  const retryAfter = Math.max(1, Math.ceil((recent.at(-1)!.createdAt + HOUR_MS - now) / 1000));
  throw new ProblemError(
    'rate_limited',
    `A workspace can send at most ${INVITATIONS_PER_HOUR} invitations an hour; try again in ${Math.ceil(retryAfter / 60)} minutes.`,
    { retryAfter, limit: INVITATIONS_PER_HOUR },
  );
}

/** Refuses an invitation of a workspace nobody vouched for once the instance sent INVITATIONS_PER_INSTANCE_HOUR in the last hour. */
async function requireInstanceInvitationAllowance(trx: Queryable, workspace: WorkspaceRow, now: number): Promise<void> {
  const recent = await trx
    .selectFrom('invitations')
    .select('createdAt')
    .where('createdAt', '>', now - HOUR_MS)
    .orderBy('createdAt', 'desc')
    .limit(INVITATIONS_PER_INSTANCE_HOUR)
    .execute();
  if (recent.length < INVITATIONS_PER_INSTANCE_HOUR) return;
  const owner = await trx.selectFrom('users').select('isAdmin').where('id', '=', workspace.ownerId).executeTakeFirst();
  if (isVouchedFor(true, { plan: workspace.plan, ownerIsAdmin: owner?.isAdmin ?? null })) return;
  const retryAfter = Math.max(1, Math.ceil((recent.at(-1)!.createdAt + HOUR_MS - now) / 1000));
  throw new ProblemError(
    'rate_limited',
    `This instance sends at most ${INVITATIONS_PER_INSTANCE_HOUR} invitations an hour for workspaces made through open sign-up, and has sent them; try again in ${Math.ceil(retryAfter / 60)} minutes (its admin can lift this for your workspace).`,
    { retryAfter, limit: INVITATIONS_PER_INSTANCE_HOUR },
  );
}

function stateOf(invitation: InvitationRow, now = Date.now()): InvitationState {
  if (invitation.acceptedAt !== null) return 'accepted';
  if (invitation.revokedAt !== null) return 'revoked';
  if (invitation.expiresAt <= now) return 'expired';
  return 'pending';
}

/** Why a link no longer works, in the words its page and a refused join both use. */
export function refusal(state: Exclude<InvitationState, 'pending'>): string {
  if (state === 'accepted') return 'This invitation has been used already: each link works once.';
  if (state === 'revoked') return 'This invitation was withdrawn, or replaced by a newer one: use the link in the newest email, or ask for a new invitation.';
  return 'This invitation has expired: invitations work for 7 days. Ask the person who invited you to send a new one.';
}
