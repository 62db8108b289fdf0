import type { Queryable } from './database.js';

/** The `settings` rows the admin page changes: how the installation is used, and the webhook allow list. */
export const INSTANCE_USAGE_KEY = 'instance-usage';
export const WEBHOOK_ALLOW_KEY = 'webhook-allow';
/** '1' when the admin requires a second factor of every account (issue 43). */
export const REQUIRE_TWO_FACTOR_KEY = 'require-two-factor';

/** The raw values of the instance's settings; a missing row is null. */
export interface StoredInstanceSettings {
  usage: string | null;
  webhookAllow: string | null;
  requireTwoFactor: string | null;
}

/** Every row in one query: the cache of every instance reads it every few seconds. */
export async function readInstanceSettings(db: Queryable): Promise<StoredInstanceSettings> {
  const rows = await db
    .selectFrom('settings')
    .select(['key', 'value'])
    .where('key', 'in', [INSTANCE_USAGE_KEY, WEBHOOK_ALLOW_KEY, REQUIRE_TWO_FACTOR_KEY])
    .execute();
  const value = (key: string) => rows.find((r) => r.key === key)?.value ?? null;
  return { usage: value(INSTANCE_USAGE_KEY), webhookAllow: value(WEBHOOK_ALLOW_KEY), requireTwoFactor: value(REQUIRE_TWO_FACTOR_KEY) };
}

/** Writes (or replaces) one setting. */
export async function writeInstanceSetting(db: Queryable, key: string, value: string, now = Date.now()): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value, createdAt: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
