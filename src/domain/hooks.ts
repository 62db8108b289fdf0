/**
 * The events an automation platform subscribes to (issue 42, item 2):
 * - `submission.created`: a submission accepted into the inbox (after the spam filter; a held one
 *   when its workspace's allowance lets it in, one marked not spam when it leaves the spam folder);
 * - `submission.spam`: a submission the filter put in the spam folder;
 * - `submission.deleted`: a submission someone deleted (the API, the dashboard, an erasure).
 */
export const HOOK_EVENTS = ['submission.created', 'submission.spam', 'submission.deleted'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Subscriptions a workspace may hold: each one is a post per event, so the list is bounded. */
export const HOOKS_PER_WORKSPACE = 100;

/** Automation-tool keys a workspace may hold at once (revoked ones do not count). */
export const KEYS_PER_WORKSPACE = 10;

/** The key's prefix: a bearer secret starting with it is an automation-tool key, not an API token. */
export const AUTOMATION_KEY_PREFIX = 'fgak_';

/** What an automation-tool key may do: read workspaces, forms and submissions, delete submissions, and subscribe. */
export const AUTOMATION_KEY_SCOPES = ['workspaces:read', 'forms:read', 'submissions:read', 'submissions:write'] as const;

/** The hook a job posts to, as intake and the other writers of events carry it. */
export interface HookTarget {
  id: string;
  event: HookEvent;
  targetUrl: string;
}

export function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}
