import type { Queryable } from '../db/database.js';
import { normaliseEmail } from '../domain/email-address.js';

// NOTE: apart from recipients.ts so that the notification channel can ask without importing the
// outbox (jobs/outbox → lanes → channels: an import cycle).

/**
 * The addresses among `emails` (normalised) that may be sent a workspace's notifications now:
 * members' and confirmed ones. The notification channel asks this at each send, so a decline or a
 * member's leaving takes effect on the next notification.
 */
export async function receivingAddresses(db: Queryable, workspaceId: string, emails: readonly string[]): Promise<Set<string>> {
  const normalised = [...new Set(emails.map(normaliseEmail))];
  if (normalised.length === 0) return new Set();
  // one query for both: each is a round trip on PostgreSQL, asked for every batch of notifications sent
  const rows = await membersAmong(db, workspaceId, normalised)
    .union(
      db
        .selectFrom('recipientConfirmations')
        .select('email')
        .where('workspaceId', '=', workspaceId)
        .where('email', 'in', normalised)
        .where('state', '=', 'confirmed'),
    )
    .execute();
  return new Set(rows.map((row) => row.email));
}

/** The addresses among `emails` (normalised) that are accounts of the workspace's members. */
export async function memberAddresses(db: Queryable, workspaceId: string, emails: readonly string[]): Promise<string[]> {
  if (emails.length === 0) return [];
  const rows = await membersAmong(db, workspaceId, emails).execute();
  return rows.map((row) => row.email);
}

function membersAmong(db: Queryable, workspaceId: string, emails: readonly string[]) {
  return db
    .selectFrom('workspaceMembers')
    .innerJoin('users', 'users.id', 'workspaceMembers.userId')
    .select('users.email')
    .where('workspaceMembers.workspaceId', '=', workspaceId)
    .where('users.email', 'in', emails);
}

/**
 * Why a notification to the address was not sent, for the delivery log: it has not confirmed yet,
 * it declined, or (a former member) it has not been asked yet.
 */
export async function withheldReason(db: Queryable, workspaceId: string, address: string): Promise<string> {
  const email = normaliseEmail(address);
  const row = await db
    .selectFrom('recipientConfirmations')
    .select('state')
    .where('workspaceId', '=', workspaceId)
    .where('email', '=', email)
    .executeTakeFirst();
  if (row?.state === 'declined') return `Not sent: ${email} declined this workspace's notifications.`;
  return `Not sent: waiting for confirmation. ${email} is not a member of this workspace and has not confirmed that it wants its notifications yet; retry once it has.`;
}
