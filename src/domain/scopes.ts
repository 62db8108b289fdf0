/** What a token may do, in the spec's order. */
export const SCOPES = ['workspaces:read', 'workspaces:write', 'forms:read', 'forms:write', 'submissions:read', 'submissions:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** A token's scopes arrive as text (API, dashboard, CLI): this checks each is one. */
export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
