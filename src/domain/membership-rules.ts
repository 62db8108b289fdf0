/**
 * Single sign-on's membership rules (issue 43, item 3): each line gives the people a provider signs
 * in, by a claim's value or by their verified email's domain, a place in a named workspace.
 *
 *   groups=formgate-editors -> <workspace id>
 *   @example.com -> <workspace id> as owner
 *
 * A leaf: the environment, the admin page and the sign-in share it. Matching is linear and bounded:
 * at most MAX_RULES rules, and a claim's list is read up to MAX_CLAIM_VALUES entries.
 */

export type MembershipRole = 'member' | 'owner';

export type MembershipRule =
  | { kind: 'claim'; claim: string; value: string; workspaceId: string; role: MembershipRole; text: string }
  | { kind: 'domain'; domain: string; workspaceId: string; role: MembershipRole; text: string };

/** What a rule grants: a place in a workspace. */
export interface MembershipGrant {
  workspaceId: string;
  role: MembershipRole;
}

/** What the provider said of the person, as rules read it. */
export interface RuleSubject {
  claims: Record<string, unknown>;
  /** The email address, only when the provider says it is verified; null otherwise. */
  verifiedEmail: string | null;
}

export const MAX_RULES = 20;
const MAX_LINE = 300;
export const MAX_CLAIM_VALUES = 1000;
const MAX_VALUE = 200;

const RULE =
  /^(?:@(?<domain>[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63})|(?<claim>[A-Za-z0-9_:./-]{1,100})=(?<value>[^\s].{0,199}?))\s*->\s*(?<workspace>[a-z2-7]{20})(?:\s+as\s+(?<role>owner|member))?$/;

/** The rules of a text (one per line, or separated by `;`), or the problems of its lines. */
export function parseMembershipRules(text: string): { rules: MembershipRule[]; problems: string[] } {
  const lines = text
    .split(/[\n;]/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const problems: string[] = [];
  if (lines.length > MAX_RULES) problems.push(`at most ${MAX_RULES} rules, got ${lines.length}`);
  const rules: MembershipRule[] = [];
  for (const [index, line] of lines.slice(0, MAX_RULES).entries()) {
    const rule = line.length <= MAX_LINE ? parseRule(line) : null;
    if (rule) rules.push(rule);
    else
      problems.push(
        `rule ${index + 1} ("${line.slice(0, 60)}") must read claim=value -> workspace id, or @domain -> workspace id, with "as owner" or "as member" at the end if wanted`,
      );
  }
  return { rules, problems };
}

function parseRule(line: string): MembershipRule | null {
  const match = RULE.exec(line.replace(/\s+/g, ' '));
  if (!match?.groups) return null;
  const { domain, claim, value, workspace, role } = match.groups;
  const common = { workspaceId: workspace!, role: (role ?? 'member') as MembershipRole, text: line };
  if (domain !== undefined) return { kind: 'domain', domain: domain.toLowerCase(), ...common };
  const trimmed = value!.trim();
  if (trimmed === '' || trimmed.length > MAX_VALUE) return null;
  return { kind: 'claim', claim: claim!, value: trimmed, ...common };
}

/** The rules as text, one per line: how the page shows them. */
export function membershipRulesText(rules: readonly MembershipRule[]): string {
  return rules.map((rule) => rule.text).join('\n');
}

/** Whether a rule holds for the person: a claim equal to its value (or a list holding it), or their verified email at its domain. */
export function ruleMatches(rule: MembershipRule, subject: RuleSubject): boolean {
  if (rule.kind === 'domain') {
    const at = subject.verifiedEmail?.lastIndexOf('@') ?? -1;
    return at > 0 && subject.verifiedEmail!.slice(at + 1).toLowerCase() === rule.domain;
  }
  const claim = Object.hasOwn(subject.claims, rule.claim) ? subject.claims[rule.claim] : undefined;
  if (Array.isArray(claim)) return claim.slice(0, MAX_CLAIM_VALUES).some((entry) => claimEquals(entry, rule.value));
  return claimEquals(claim, rule.value);
}

function claimEquals(claim: unknown, value: string): boolean {
  if (typeof claim === 'string') return claim === value;
  if (typeof claim === 'number' || typeof claim === 'boolean') return String(claim) === value;
  return false;
}

/** What the rules grant the person: one place per workspace, owner when any matching rule says so. */
export function membershipGrants(rules: readonly MembershipRule[], subject: RuleSubject): MembershipGrant[] {
  const grants = new Map<string, MembershipRole>();
  for (const rule of rules.slice(0, MAX_RULES)) {
    if (!ruleMatches(rule, subject)) continue;
    if (grants.get(rule.workspaceId) !== 'owner') grants.set(rule.workspaceId, rule.role);
  }
  return [...grants].map(([workspaceId, role]) => ({ workspaceId, role }));
}
