import type { Config } from '../config/config.js';
import { oidcIssuerOrThrow } from '../config/oidc.js';
import type { Database } from '../db/database.js';
import { writeInstanceSetting } from '../db/instance-settings.js';
import type { UserRow } from '../db/schema/user.js';
import { type MembershipRule, membershipRulesText, parseMembershipRules } from '../domain/membership-rules.js';
import { validationError } from '../errors.js';
import type { AuditLog } from './audit-log.js';
import type { SealedValues } from './sealed-values.js';

/** The `settings` row of the admin page's single sign-on (JSON; the client secret sealed). */
export const OIDC_SETTINGS_KEY = 'oidc';
const SECRET_CONTEXT = 'oidc-client-secret';
/** The button's words when no name is set: "Sign in with SSO". */
export const DEFAULT_PROVIDER_NAME = 'SSO';
/** Where the provider sends people back: register it at the provider. */
export const OIDC_CALLBACK_PATH = '/login/oidc/callback';

interface StoredOidc {
  issuer?: string;
  clientId?: string;
  sealedSecret?: string;
  name?: string;
  signup?: boolean;
  only?: boolean;
  rules?: string;
}

/** Single sign-on as it applies now: the environment's values over the admin page's. */
export interface OidcSetup {
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
  signup: boolean;
  only: boolean;
  rules: MembershipRule[];
}

type Field = 'issuer' | 'clientId' | 'clientSecret' | 'name' | 'signup' | 'only' | 'rules';

/** What /admin/sign-in shows: never the client secret, only whether one is set. */
export interface OidcSettingsView {
  issuer: string;
  clientId: string;
  clientSecretSet: boolean;
  name: string;
  signup: boolean;
  only: boolean;
  rules: string;
  /** The fields FORMGATE_OIDC_* set: shown, not editable. */
  fromEnvironment: Record<Field, boolean>;
  /** Issuer, client id and secret are all set: the login page offers the provider. */
  configured: boolean;
  redirectUri: string;
}

/** What the admin page posts; a field the environment sets is ignored. An empty secret keeps the one stored. */
export interface OidcSettingsInput {
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
  signup: boolean;
  only: boolean;
  rules: string;
}

/**
 * Single sign-on's settings (issue 43, item 3): FORMGATE_OIDC_* first, then the admin page's
 * /admin/sign-in, stored in one `settings` row and read on every use (one small query on the
 * sign-in pages only), so every instance follows a change at once. The client secret is sealed
 * (services/sealed-values.ts) and never shown again.
 */
export class OidcSettings {
  constructor(
    private readonly database: Database,
    private readonly config: Pick<Config, 'oidc' | 'publicUrl'>,
    private readonly sealed: SealedValues,
    private readonly audit: AuditLog,
  ) {}

  /** The provider's settings, or null while issuer, client id or secret is missing (then nothing of single sign-on applies). */
  async setup(): Promise<OidcSetup | null> {
    const { values } = await this.merged();
    if (!values.issuer || !values.clientId || !values.clientSecret) return null;
    return { ...values, issuer: values.issuer, clientId: values.clientId, clientSecret: values.clientSecret };
  }

  /**
   * Whether the account may sign in (or reset, or change) by password: always, unless single
   * sign-on only is on; then the instance admins alone (the break-glass accounts).
   */
  async passwordAllowed(user: Pick<UserRow, 'isAdmin'>): Promise<boolean> {
    if (user.isAdmin === 1) return true;
    return !(await this.setup())?.only;
  }

  /** The address the provider sends people back to: `<FORMGATE_PUBLIC_URL>/login/oidc/callback`. */
  redirectUri(): string {
    return `${this.config.publicUrl}${OIDC_CALLBACK_PATH}`;
  }

  async view(): Promise<OidcSettingsView> {
    const { values, fromEnvironment } = await this.merged();
    return {
      issuer: values.issuer ?? '',
      clientId: values.clientId ?? '',
      clientSecretSet: values.clientSecret !== null,
      name: values.name,
      signup: values.signup,
      only: values.only,
      rules: membershipRulesText(values.rules),
      fromEnvironment,
      configured: Boolean(values.issuer && values.clientId && values.clientSecret),
      redirectUri: this.redirectUri(),
    };
  }

  /** Saves the admin page's settings; a bad field refuses them all (`validation_error`, by field), and nothing changes. */
  async save(actor: Pick<UserRow, 'id' | 'email'>, input: OidcSettingsInput): Promise<void> {
    const env = this.config.oidc;
    const stored = await this.stored();
    const problems: string[] = [];
    const next: StoredOidc = { ...stored };
    if (env.issuer === null) {
      const issuer = input.issuer.trim();
      if (issuer === '') delete next.issuer;
      else
        try {
          next.issuer = oidcIssuerOrThrow(issuer, (why) => new Error(why));
        } catch (error) {
          problems.push(`issuer: ${(error as Error).message}`);
        }
    }
    if (env.clientId === null) next.clientId = bounded(input.clientId, 'clientId', 500, problems);
    if (env.clientSecret === null && input.clientSecret.trim() !== '') {
      const secret = bounded(input.clientSecret, 'clientSecret', 2000, problems);
      next.sealedSecret = this.sealed.seal(secret, SECRET_CONTEXT);
    }
    if (env.name === null) next.name = bounded(input.name, 'name', 60, problems);
    if (env.signup === null) next.signup = input.signup;
    if (env.only === null) next.only = input.only;
    if (env.rules === null) {
      const { rules, problems: ruleProblems } = parseMembershipRules(input.rules.slice(0, 20_000));
      problems.push(...ruleProblems.map((p) => `rules: ${p}`), ...(await this.missingWorkspaces(rules)));
      next.rules = membershipRulesText(rules);
    }
    if (problems.length > 0) throw validationError(problems, 'The single sign-on settings were not saved.');
    await writeInstanceSetting(this.database.db, OIDC_SETTINGS_KEY, JSON.stringify(next));
    const changed = (Object.keys({ ...stored, ...next }) as (keyof StoredOidc)[]).filter((key) => stored[key] !== next[key]);
    if (changed.length > 0) {
      await this.audit.record({ action: 'sso.settings_changed', actorUserId: actor.id, actorEmail: actor.email, details: { changed: changed.map(fieldOf) } });
    }
  }

  private async missingWorkspaces(rules: MembershipRule[]): Promise<string[]> {
    const ids = [...new Set(rules.map((rule) => rule.workspaceId))];
    if (ids.length === 0) return [];
    const found = await this.database.db.selectFrom('workspaces').select('id').where('id', 'in', ids).execute();
    const known = new Set(found.map((row) => row.id));
    return ids.filter((id) => !known.has(id)).map((id) => `rules: no workspace has the id ${id}`);
  }

  private async stored(): Promise<StoredOidc> {
    const row = await this.database.db.selectFrom('settings').select('value').where('key', '=', OIDC_SETTINGS_KEY).executeTakeFirst();
    if (!row) return {};
    try {
      const parsed = JSON.parse(row.value) as unknown;
      return typeof parsed === 'object' && parsed !== null ? (parsed as StoredOidc) : {};
    } catch {
      return {};
    }
  }

  private async merged() {
    const env = this.config.oidc;
    const stored = await this.stored();
    const storedSecret = stored.sealedSecret ? this.sealed.open(stored.sealedSecret, SECRET_CONTEXT) : null;
    // rules stored by another version are read as far as they go
    const storedRules = parseMembershipRules(stored.rules ?? '').rules;
    const values = {
      issuer: env.issuer ?? (stored.issuer || null),
      clientId: env.clientId ?? (stored.clientId || null),
      clientSecret: env.clientSecret ?? (storedSecret || null),
      name: env.name || stored.name || DEFAULT_PROVIDER_NAME,
      signup: env.signup ?? stored.signup === true,
      only: env.only ?? stored.only === true,
      rules: env.rules ?? storedRules,
    };
    const fromEnvironment: Record<Field, boolean> = {
      issuer: env.issuer !== null,
      clientId: env.clientId !== null,
      clientSecret: env.clientSecret !== null,
      name: env.name !== null,
      signup: env.signup !== null,
      only: env.only !== null,
      rules: env.rules !== null,
    };
    return { values, fromEnvironment };
  }
}

function bounded(value: string, field: string, max: number, problems: string[]): string {
  const trimmed = value.trim();
  if (trimmed.length > max) problems.push(`${field}: at most ${max} characters`);
  return trimmed.slice(0, max);
}

function fieldOf(key: keyof StoredOidc): string {
  return key === 'sealedSecret' ? 'clientSecret' : key;
}
