import type { Database } from './database.js';

/**
 * The ALTCHA challenges already answered (migration 0028), in the database every instance shares:
 * one insert decides, atomically on both dialects, which of two posts of one answer is taken.
 */
export class AltchaSpentChallenges {
  constructor(private readonly database: Database) {}

  async spend(id: string, expiresAt: number): Promise<boolean> {
    const result = await this.database.db
      .insertInto('altchaSpentChallenges')
      .values({ id, expiresAt })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** Forgets the challenges past their expiry (refused as expired anyway); answers how many. */
  async purgeExpired(now = Date.now()): Promise<number> {
    const result = await this.database.db.deleteFrom('altchaSpentChallenges').where('expiresAt', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
