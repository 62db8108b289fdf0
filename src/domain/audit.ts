/**
 * The audit log's words (issue 43, item 4): where a change came from, and the groups its actions
 * belong to. An action is `group.verb` (`token.created`, `member.removed`); the group is what the
 * pages and the API filter by.
 */
export const AUDIT_VIA = ['dashboard', 'api', 'cli', 'system'] as const;
export type AuditVia = (typeof AUDIT_VIA)[number];

/** Each group and what the filter calls it, in the order the filter lists them. */
export const AUDIT_GROUPS = {
  account: 'Accounts and passwords',
  two_factor: 'Two-factor sign-in',
  passkey: 'Passkeys',
  session: 'Sessions',
  sso: 'Single sign-on',
  member: 'Members and invitations',
  token: 'API tokens',
  automation_key: 'Automation-tool keys',
  hook: 'Automation subscriptions',
  workspace: 'Workspace and its settings',
  plan: 'Plans',
  form: 'Forms and their settings',
  template: 'Templates',
  label: 'Labels',
  view: 'Saved views',
  submissions: 'Exports, downloads, erasures, deletions',
  instance: 'Installation settings',
} as const;
export type AuditGroup = keyof typeof AUDIT_GROUPS;
export type AuditAction = `${AuditGroup}.${string}`;

export function isAuditGroup(value: unknown): value is AuditGroup {
  return typeof value === 'string' && Object.hasOwn(AUDIT_GROUPS, value);
}

/** The group of an action: the part before its dot. */
export function auditGroupOf(action: string): string {
  return action.slice(0, Math.max(0, action.indexOf('.'))) || action;
}

/** The longest user agent kept: enough to tell a browser and its system apart. */
export const AUDIT_USER_AGENT_MAX = 256;
/** The longest target name kept (a form's or token's name). */
export const AUDIT_NAME_MAX = 200;
