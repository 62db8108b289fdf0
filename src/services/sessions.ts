import type { Database, Queryable } from '../db/database.js';
import type { AuditLog } from './audit-log.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { unlessStorageUnavailable } from '../db/storage-errors.js';
import type { SessionRow } from '../db/schema/session.js';
import type { UserRow } from '../db/schema/user.js';
import { hashSecret, newSecret } from './secrets.js';

export interface SessionLimits {
  /** A session unused for this long ends. */
  idleMs: number;
  /** A session ends this long after login, however much it is used. */
  absoluteMs: number;
}

export interface ActiveSession {
  session: SessionRow;
  user: UserRow;
  /** The account has no second factor yet and a workspace it belongs to requires one (its owner's setting). */
  secondFactorRequiredByWorkspace: boolean;
  /** The account has no second factor and must set one up before anything else (the dashboard fills it in: the admin's rule or a workspace's). */
  mustSetUpSecondFactor?: boolean;
}

/** Where and how a session starts: shown on the sessions page. */
export interface SessionOrigin {
  userAgent: string | null;
  ip: string | null;
  /** The sign-in proved the account's second factor (an app's code, a recovery code, a passkey, a remembered browser). */
  secondFactor: boolean;
}

/** A live session as the sessions page lists it. */
export interface ListedSession {
  idHash: string;
  createdAt: number;
  lastSeenAt: number;
  userAgent: string | null;
  ip: string | null;
}

/** A session started outside a browser's sign-in (tests, the bench). */
const NO_ORIGIN: SessionOrigin = { userAgent: null, ip: null, secondFactor: false };

// A browser's User-Agent is kept this long at most: enough to name it, never a page of text.
const USER_AGENT_LENGTH = 300;

// lastSeenAt is written at most once a minute per session: no write per page view.
const TOUCH_RESOLUTION_MS = 60_000;
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Dashboard logins, kept in the database so that any instance serves any request. */
export class SessionService {
  // Run on every dashboard request: built once, and prepared once per PostgreSQL connection.
  private readonly sessionWithUser = new PreparedQuery((db, { idHash }: { idHash: string }) =>
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.userId')
      .select([
        'sessions.idHash',
        'sessions.userId',
        'sessions.createdAt',
        'sessions.lastSeenAt',
        'sessions.expiresAt',
        'sessions.userAgent',
        'sessions.ip',
        'sessions.secondFactorAt as sessionSecondFactorAt',
      ])
      .select(['users.email', 'users.passwordHash', 'users.isAdmin', 'users.timeZone', 'users.disabledAt', 'users.createdAt as userCreatedAt'])
      .select(['users.totpSecret', 'users.totpLastStep', 'users.secondFactorAt'])
      // asked only of an account without a second factor: does a workspace it belongs to require one?
      .select((eb) =>
        eb
          .and([
            eb('users.secondFactorAt', 'is', null),
            eb.exists(
              eb
                .selectFrom('workspaceMembers')
                .innerJoin('workspaces', 'workspaces.id', 'workspaceMembers.workspaceId')
                .select('workspaceMembers.userId')
                .whereRef('workspaceMembers.userId', '=', 'users.id')
                .where('workspaces.requireTwoFactor', '=', 1),
            ),
          ])
          .as('requiredByWorkspace'),
      )
      .where('sessions.idHash', '=', idHash),
  );

  constructor(
    private readonly database: Database,
    readonly limits: SessionLimits,
    /** Where a session signed out from the sessions page is recorded (absent in tests that need none). */
    private readonly audit?: AuditLog,
  ) {}

  /** Starts a session for the account; the secret goes in the cookie and only its hash is kept. */
  async start(userId: string, origin: SessionOrigin = NO_ORIGIN): Promise<{ secret: string; expiresAt: number }> {
    const secret = newSecret();
    const now = Date.now();
    const expiresAt = now + this.limits.absoluteMs;
    await this.database.transaction(async (trx) => {
      // the account's ended sessions go as a new one starts, so the table never grows without bound
      await trx
        .deleteFrom('sessions')
        .where('userId', '=', userId)
        .where((eb) => eb.or([eb('expiresAt', '<=', now), eb('lastSeenAt', '<=', now - this.limits.idleMs)]))
        .execute();
      await trx
        .insertInto('sessions')
        .values({
          idHash: hashSecret(secret),
          userId,
          createdAt: now,
          lastSeenAt: now,
          expiresAt,
          userAgent: origin.userAgent?.slice(0, USER_AGENT_LENGTH) ?? null,
          ip: origin.ip,
          secondFactorAt: origin.secondFactor ? now : null,
        })
        .execute();
    });
    return { secret, expiresAt };
  }

  /** The live session behind a cookie's secret and its account, or null (unknown, ended or expired). */
  async resolve(secret: string): Promise<ActiveSession | null> {
    if (!SECRET_SHAPE.test(secret)) return null;
    const idHash = hashSecret(secret);
    const row = await this.sessionWithUser.executeTakeFirst(this.database.db, { idHash });
    // a disabled account's sessions stop at once (disabling also deletes them)
    if (!row || row.disabledAt !== null) return null;
    const now = Date.now();
    // NOTE: both writes are bookkeeping: while the database cannot write (its disk full), a page
    // that only reads is still served, and an expired session is still refused.
    if (row.expiresAt <= now || row.lastSeenAt <= now - this.limits.idleMs) {
      await unlessStorageUnavailable(this.database.db.deleteFrom('sessions').where('idHash', '=', idHash).execute());
      return null;
    }
    if (now - row.lastSeenAt >= TOUCH_RESOLUTION_MS) {
      if (await unlessStorageUnavailable(this.database.db.updateTable('sessions').set({ lastSeenAt: now }).where('idHash', '=', idHash).execute())) {
        row.lastSeenAt = now;
      }
    }
    return {
      session: {
        idHash,
        userId: row.userId,
        createdAt: row.createdAt,
        lastSeenAt: row.lastSeenAt,
        expiresAt: row.expiresAt,
        userAgent: row.userAgent,
        ip: row.ip,
        secondFactorAt: row.sessionSecondFactorAt,
      },
      user: {
        id: row.userId,
        email: row.email,
        passwordHash: row.passwordHash,
        isAdmin: row.isAdmin,
        timeZone: row.timeZone,
        disabledAt: row.disabledAt,
        totpSecret: row.totpSecret,
        totpLastStep: row.totpLastStep,
        secondFactorAt: row.secondFactorAt,
        createdAt: row.userCreatedAt,
      },
      secondFactorRequiredByWorkspace: Boolean(row.requiredByWorkspace),
    };
  }

  /** Ends the session behind the secret (logging out). */
  async end(secret: string): Promise<void> {
    await this.database.db.deleteFrom('sessions').where('idHash', '=', hashSecret(secret)).execute();
  }

  /** Ends every session of the account ("log out everywhere", a password reset, in its transaction); returns how many. */
  async endAll(userId: string, db: Queryable = this.database.db): Promise<number> {
    const result = await db.deleteFrom('sessions').where('userId', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Ends every session of the account but one (a password change keeps the browser that made it); returns how many. */
  async endAllExcept(userId: string, keptIdHash: string): Promise<number> {
    const result = await this.database.db.deleteFrom('sessions').where('userId', '=', userId).where('idHash', '!=', keptIdHash).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Records that the session proved the account's second factor just now (making a token asks for a recent proof). */
  async proveSecondFactor(idHash: string, now = Date.now()): Promise<void> {
    await this.database.db.updateTable('sessions').set({ secondFactorAt: now }).where('idHash', '=', idHash).execute();
  }

  /** The account's live sessions, the most recently used first (the sessions page; a few dozen at most, ended ones go at each login). */
  async listLive(userId: string): Promise<ListedSession[]> {
    const now = Date.now();
    return this.database.db
      .selectFrom('sessions')
      .select(['idHash', 'createdAt', 'lastSeenAt', 'userAgent', 'ip'])
      .where('userId', '=', userId)
      .where('expiresAt', '>', now)
      .where('lastSeenAt', '>', now - this.limits.idleMs)
      .orderBy('lastSeenAt', 'desc')
      .orderBy('idHash')
      .execute();
  }

  /** Ends one of the account's sessions (the sessions page's "Sign out"); false when it has no such session. */
  async endOne(userId: string, idHash: string): Promise<boolean> {
    return this.database.transaction(async (trx) => {
      const result = await trx.deleteFrom('sessions').where('userId', '=', userId).where('idHash', '=', idHash).executeTakeFirst();
      const ended = Number(result.numDeletedRows) > 0;
      if (ended) await this.audit?.record({ action: 'session.signed_out_elsewhere', actorUserId: userId }, trx);
      return ended;
    });
  }

  /** How many live sessions the account has (shown on its account page). */
  async countLive(userId: string): Promise<number> {
    const now = Date.now();
    const row = await this.database.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('userId', '=', userId)
      .where('expiresAt', '>', now)
      .where('lastSeenAt', '>', now - this.limits.idleMs)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
