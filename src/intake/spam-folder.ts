import type { Transaction } from 'kysely';
import { toJson, type Dialect } from '../db/database.js';
import { dayOf } from '../db/schema/daily-count.js';
import type { DB } from '../db/schema/index.js';
import { type PlanRules, spamFolderCap } from '../domain/plans.js';
import type { SubmissionToStore } from './writer.js';

/**
 * The spam of the batch past its workspace's spam folder's bound (domain/plans.ts), in arrival
 * order; the rest of its spam and the dropped are counted into the day (`spam_days`). The folder is
 * measured by what was caught within the spam retention (spam_days): no spam stays longer, so it is
 * an upper bound of what the folder holds that no deletion has to keep right. PostgreSQL locks the
 * batch's workspaces first (in id order, the order every batch locks them in), so that of two
 * instances' batches the second sees the first's counts: the bound holds exactly. A batch without
 * spam reads nothing.
 */
export async function spamPastFolder(
  trx: Transaction<DB>,
  dialect: Dialect,
  rules: PlanRules,
  retentionMs: number,
  batch: readonly SubmissionToStore[],
  now: number,
): Promise<Set<SubmissionToStore>> {
  const dropped = new Set<SubmissionToStore>();
  const spam = batch.filter((submission) => submission.spam);
  if (spam.length === 0) return dropped;
  const spamWorkspaces = [...new Set(spam.map((submission) => submission.workspaceId))].sort();
  const locked = dialect === 'postgres' ? [...new Set(batch.map((submission) => submission.workspaceId))].sort() : spamWorkspaces;
  const select = trx.selectFrom('workspaces').select(['id', 'plan']).where('id', 'in', locked).orderBy('id');
  const plans = new Map((await (dialect === 'postgres' ? select.forUpdate() : select).execute()).map((row) => [row.id, row.plan]));
  const sums = await trx
    .selectFrom('spamDays')
    .select(['workspaceId', (eb) => eb.fn.sum<number | string>('caught').as('caught'), (eb) => eb.fn.sum<number | string>('bytes').as('bytes')])
    .where('workspaceId', 'in', spamWorkspaces)
    .where('day', '>=', dayOf(now - retentionMs))
    .groupBy('workspaceId')
    .execute();
  const held = new Map(sums.map((row) => [row.workspaceId, { caught: Number(row.caught), bytes: Number(row.bytes) }]));
  const today = new Map<string, { caught: number; bytes: number; dropped: number }>();
  for (const submission of spam) {
    const plan = plans.get(submission.workspaceId);
    if (!plan) continue;
    const cap = spamFolderCap(plan, rules.isUpgraded(plan));
    const folder = held.get(submission.workspaceId) ?? { caught: 0, bytes: 0 };
    const day = today.get(submission.workspaceId) ?? { caught: 0, bytes: 0, dropped: 0 };
    const bytes = spamBytesOf(submission);
    if (folder.caught + 1 > cap.count || folder.bytes + bytes > cap.bytes) {
      dropped.add(submission);
      day.dropped++;
    } else {
      folder.caught++;
      folder.bytes += bytes;
      day.caught++;
      day.bytes += bytes;
    }
    held.set(submission.workspaceId, folder);
    today.set(submission.workspaceId, day);
  }
  const rows = [...today].map(([workspaceId, day]) => ({ workspaceId, day: dayOf(now), ...day }));
  if (rows.length > 0) {
    await trx
      .insertInto('spamDays')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['workspaceId', 'day']).doUpdateSet((eb) => ({
          caught: eb(eb.ref('spamDays.caught'), '+', eb.ref('excluded.caught')),
          bytes: eb(eb.ref('spamDays.bytes'), '+', eb.ref('excluded.bytes')),
          dropped: eb(eb.ref('spamDays.dropped'), '+', eb.ref('excluded.dropped')),
        })),
      )
      .execute();
  }
  return dropped;
}

/** What a spam submission takes of its spam folder: its fields as stored (JSON, in bytes) and its stored files. */
function spamBytesOf(submission: SubmissionToStore): number {
  let bytes = Buffer.byteLength(toJson(submission.data));
  for (const file of submission.files ?? []) if (file.storageKey !== null) bytes += file.size;
  return bytes;
}
