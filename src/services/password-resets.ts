import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { ProblemError, validationError } from '../errors.js';
import type { AuditLog } from './audit-log.js';
import { enqueueAccountEmail } from './mail-outbox.js';
import { hashSecret, newSecret } from './secrets.js';
import type { SessionService } from './sessions.js';
import { revokeAllTokens } from './tokens.js';
import { emailProblem, type UserService } from './users.js';

/** How long an emailed link works. */
export const RESET_LINK_LIFETIME_MS = 60 * 60_000;
/** Links sent to one account per lifetime: enough to retry, too few to flood a mailbox. */
export const RESET_LINKS_PER_ACCOUNT = 5;
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const RESET_LINK_EXPIRED = 'This link has expired or was already used.';

/**
 * Password resets by emailed link: the link's secret is sent once and stored as its SHA-256 only;
 * it works once, within an hour, and using it ends every session of the account.
 */
export class PasswordResetService {
  constructor(
    private readonly database: Database,
    private readonly users: UserService,
    private readonly sessions: SessionService,
    /** Read when a link is made: `formgate serve` settles the public URL once it listens. */
    private readonly config: Pick<Config, 'publicUrl'>,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Emails a reset link when an account has the address, and does nothing when none has, or when
   * the account was sent its share of links this hour: the caller answers the same either way.
   */
  async request(email: string): Promise<void> {
    const problem = emailProblem(email);
    if (problem) throw validationError([problem]);
    const user = await this.users.findByEmail(email);
    if (!user) return;
    const secret = newSecret();
    const now = Date.now();
    await this.database.transaction(async (trx) => {
      // links past their hour go, so an account never holds more than its share
      await trx
        .deleteFrom('passwordResets')
        .where('userId', '=', user.id)
        .where('createdAt', '<=', now - RESET_LINK_LIFETIME_MS)
        .execute();
      const sent = await trx
        .selectFrom('passwordResets')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('userId', '=', user.id)
        .executeTakeFirstOrThrow();
      if (Number(sent.n) >= RESET_LINKS_PER_ACCOUNT) return;
      await trx
        .insertInto('passwordResets')
        .values({ tokenHash: hashSecret(secret), userId: user.id, createdAt: now, expiresAt: now + RESET_LINK_LIFETIME_MS, usedAt: null })
        .execute();
      await enqueueAccountEmail(trx, user.email, {
        subject: 'Reset your Formgate password',
        paragraphs: [
          `Someone asked to reset the password of the Formgate account ${user.email} at ${this.config.publicUrl}.`,
          'Follow the link to choose a new one. It works once, within the next hour, and logs the account out everywhere.',
        ],
        action: { label: 'Choose a new password', url: `${this.config.publicUrl}/reset-password/${secret}` },
        footer: 'If you did not ask for this, ignore this email: your password stays as it is.',
        oneTimeLink: true,
      });
    });
  }

  /** The account a link is for while it is unused and unexpired, else null: what the reset page shows. */
  async accountFor(secret: string): Promise<{ userId: string; email: string } | null> {
    if (!SECRET_SHAPE.test(secret)) return null;
    const row = await this.database.db
      .selectFrom('passwordResets')
      .innerJoin('users', 'users.id', 'passwordResets.userId')
      .select(['users.id as userId', 'users.email'])
      .where('passwordResets.tokenHash', '=', hashSecret(secret))
      .where('passwordResets.usedAt', 'is', null)
      .where('passwordResets.expiresAt', '>', Date.now())
      .executeTakeFirst();
    return row ?? null;
  }

  /**
   * Sets the account's password through a link and ends all its sessions, in one transaction that
   * uses the link up: of two uses at once, one changes the password and the other is `not_found`.
   * The account's other unused links stop working too. With `revokeTokens` (the page's box, ticked
   * by default) its API tokens are revoked in the same transaction: a token minted with a stolen
   * session or password must not outlive the reset.
   */
  async reset(secret: string, password: string, options: { revokeTokens?: boolean } = {}): Promise<{ userId: string; email: string; tokensRevoked: number }> {
    const account = await this.accountFor(secret);
    if (!account) throw new ProblemError('not_found', RESET_LINK_EXPIRED);
    const tokenHash = hashSecret(secret);
    let tokensRevoked = 0;
    await this.users.setPassword(account.userId, password, async (trx) => {
      const now = Date.now();
      const used = await trx
        .updateTable('passwordResets')
        .set({ usedAt: now })
        .where('tokenHash', '=', tokenHash)
        .where('usedAt', 'is', null)
        .where('expiresAt', '>', now)
        .returning('userId')
        .executeTakeFirst();
      if (!used) throw new ProblemError('not_found', RESET_LINK_EXPIRED);
      await trx.updateTable('passwordResets').set({ usedAt: now }).where('userId', '=', account.userId).where('usedAt', 'is', null).execute();
      await this.sessions.endAll(account.userId, trx);
      if (options.revokeTokens) tokensRevoked = await revokeAllTokens(trx, account.userId, now);
      // the link proved the address: the account's owner acted, though not signed in
      const target = { kind: 'account', id: account.userId, name: account.email };
      await this.audit.record(
        { action: 'account.password_reset', actorUserId: account.userId, actorEmail: account.email, target, details: { tokensRevoked } },
        trx,
      );
    });
    return { ...account, tokensRevoked };
  }
}
