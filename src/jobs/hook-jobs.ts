import { fromJson, type Queryable } from '../db/database.js';
import { HOOKS_PER_WORKSPACE, type HookEvent, type HookTarget } from '../domain/hooks.js';
import type { JobToEnqueue } from './outbox.js';

// The jobs of the automation platforms' subscriptions (services/hooks.ts; issue 42, item 2), written
// by intake and by every other writer of an event, in the transaction of the event.

export const HOOK_KIND = 'hook';

/** What a 'hook' job carries: where it goes when queued, and the event as it happened. */
export interface HookPayload {
  /** The hook's target when queued (its destination); each try reads the hook again. */
  url: string;
  hookId: string;
  event: HookEvent;
  submissionId: string;
  formId: string;
  /** Epoch ms: when the submission arrived (created, spam) or was deleted. */
  at: number;
  /** The submitted fields (created, spam); absent for a deletion. */
  fields?: Record<string, unknown>;
}

/** A hook's body: the Submission of 2.4 (created, spam), or the deleted submission's ids and when. */
export type HookSample = ReturnType<typeof hookBody>;

/**
 * What a hook posts for an event: the spec's Submission (what the polling trigger lists, so a
 * platform deduplicates both by `id`), or for a deletion `{ id, formId, deletedAt }`.
 */
export function hookBody(event: HookEvent, submissionId: string, formId: string, at: number, fields: Record<string, unknown> | undefined) {
  const when = new Date(at).toISOString();
  return event === 'submission.deleted' ? { id: submissionId, formId, deletedAt: when } : { id: submissionId, formId, data: fields ?? {}, createdAt: when };
}

/** One job per hook of `event` among `hooks`, for one submission. */
export function hookJobs(
  hooks: readonly HookTarget[] | undefined,
  event: HookEvent,
  submission: { id: string; formId: string; data?: unknown; at: number },
): JobToEnqueue[] {
  if (!hooks || hooks.length === 0) return [];
  const fields = event === 'submission.deleted' ? undefined : fromJson<Record<string, unknown>>(submission.data);
  return hooks
    .filter((hook) => hook.event === event)
    .map((hook) => ({
      kind: HOOK_KIND,
      payload: {
        url: hook.targetUrl,
        hookId: hook.id,
        event,
        submissionId: submission.id,
        formId: submission.formId,
        at: submission.at,
        ...(fields ? { fields } : {}),
      } satisfies HookPayload,
      // a deleted submission's job outlives its row (the column would be cleared at once)
      submissionId: event === 'submission.deleted' ? null : submission.id,
      // the webhook-id: one per event of a submission, the same on every try
      idempotencyKey: `${event}:${submission.id}`,
    }));
}

/** A form's hooks (its own and its workspace's), for the writers of events outside intake. */
export async function hooksOfForm(db: Queryable, formId: string, events: readonly HookEvent[]): Promise<HookTarget[]> {
  return db
    .selectFrom('hooks')
    .innerJoin('forms', 'forms.workspaceId', 'hooks.workspaceId')
    .select(['hooks.id', 'hooks.event', 'hooks.targetUrl'])
    .where('forms.id', '=', formId)
    .where((eb) => eb.or([eb('hooks.formId', 'is', null), eb('hooks.formId', '=', formId)]))
    .where('hooks.event', 'in', [...events])
    .limit(HOOKS_PER_WORKSPACE)
    .execute();
}

/** The `submission.deleted` jobs of submissions about to be deleted, enqueued in the caller's transaction. */
export async function deletedEventJobs(db: Queryable, submissions: readonly { id: string; formId: string }[]): Promise<JobToEnqueue[]> {
  const byForm = new Map<string, HookTarget[]>();
  const now = Date.now();
  const jobs: JobToEnqueue[] = [];
  for (const submission of submissions) {
    let hooks = byForm.get(submission.formId);
    if (!hooks) {
      hooks = await hooksOfForm(db, submission.formId, ['submission.deleted']);
      byForm.set(submission.formId, hooks);
    }
    jobs.push(...hookJobs(hooks, 'submission.deleted', { ...submission, at: now }));
  }
  return jobs;
}
