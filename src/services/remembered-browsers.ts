import type { Database } from '../db/database.js';
import type { AuditLog } from './audit-log.js';
import { hashSecret, newSecret } from './secrets.js';

/** A browser the person asked to remember skips the second factor for this long. */
export const REMEMBER_FOR_MS = 30 * 24 * 60 * 60_000;

/**
 * Browsers that skip the second factor at sign-in for 30 days (the "Remember this browser" box):
 * the browser's cookie holds a random secret per account, the table its SHA-256. The password is
 * still asked. Forgetting them all (the account page, turning two factors off, a password reset)
 * deletes the rows, so a copied cookie stops working at once.
 */
export class RememberedBrowsers {
  constructor(
    private readonly database: Database,
    private readonly audit: AuditLog,
    private readonly now: () => number = Date.now,
  ) {}

  /** Remembers a browser for the account; the secret goes in its cookie. */
  async remember(userId: string): Promise<{ secret: string; expiresAt: number }> {
    const secret = newSecret();
    const now = this.now();
    const expiresAt = now + REMEMBER_FOR_MS;
    await this.database.transaction(async (trx) => {
      // the account's expired ones go as a new one comes, so the table never grows without bound
      await trx.deleteFrom('rememberedBrowsers').where('userId', '=', userId).where('expiresAt', '<=', now).execute();
      await trx
        .insertInto('rememberedBrowsers')
        .values({ tokenHash: hashSecret(secret), userId, createdAt: now, expiresAt })
        .execute();
    });
    return { secret, expiresAt };
  }

  /** Whether one of the browser's secrets remembers it for this account, unexpired. */
  async remembers(userId: string, secrets: readonly string[]): Promise<boolean> {
    if (secrets.length === 0) return false;
    const row = await this.database.db
      .selectFrom('rememberedBrowsers')
      .select('tokenHash')
      .where('userId', '=', userId)
      .where('tokenHash', 'in', secrets.map(hashSecret))
      .where('expiresAt', '>', this.now())
      .executeTakeFirst();
    return row !== undefined;
  }

  /** How many browsers are remembered for the account now (the account page). */
  async count(userId: string): Promise<number> {
    const row = await this.database.db
      .selectFrom('rememberedBrowsers')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('userId', '=', userId)
      .where('expiresAt', '>', this.now())
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Forgets every browser of the account; returns how many. */
  async forgetAll(userId: string): Promise<number> {
    return this.database.transaction(async (trx) => {
      const result = await trx.deleteFrom('rememberedBrowsers').where('userId', '=', userId).executeTakeFirst();
      const forgotten = Number(result.numDeletedRows);
      if (forgotten > 0) await this.audit.record({ action: 'two_factor.browsers_forgotten', actorUserId: userId, details: { forgotten } }, trx);
      return forgotten;
    });
  }
}
