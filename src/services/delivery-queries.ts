import { type Kysely, sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { DB } from '../db/schema/index.js';
import type { JobStatus } from '../db/schema/job.js';
import { ProblemError } from '../errors.js';

// What the delivery log (services/deliveries.ts) and its retries (services/delivery-retries.ts) share.

/** Statuses as SQL literals, never from input: a partial index serves only a query that names its value. */
export const STATUS_LITERALS = { pending: sql.lit<JobStatus>('pending'), done: sql.lit<JobStatus>('done'), failed: sql.lit<JobStatus>('failed') } as const;

/** The form, if the account belongs to its workspace: a subquery for `exists`. */
export function memberForm(db: Queryable, userId: string, formId: string) {
  return db
    .selectFrom('forms')
    .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'forms.workspaceId')
    .select(sql.lit(1).as('one'))
    .where('forms.id', '=', formId)
    .where('workspaceMembers.userId', '=', userId);
}

/** `not_found` unless the form exists and the account belongs to its workspace (the same answer for both). */
export async function requireMemberForm(db: Queryable, userId: string, formId: string): Promise<void> {
  const form = await memberForm(db, userId, formId).executeTakeFirst();
  if (!form) throw new ProblemError('not_found', `Form ${formId} was not found.`);
}

/** `not_found` unless the form exists: the operator's commands name forms by id, with no access check. */
export async function requireForm(db: Kysely<DB>, formId: string): Promise<void> {
  const form = await db.selectFrom('forms').select('id').where('id', '=', formId).executeTakeFirst();
  if (!form) throw new ProblemError('not_found', `There is no form ${formId}.`);
}
