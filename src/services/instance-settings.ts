import type { Config } from '../config/config.js';
import type { Database, Queryable } from '../db/database.js';
import { INSTANCE_USAGE_KEY, readInstanceSettings, REQUIRE_TWO_FACTOR_KEY, WEBHOOK_ALLOW_KEY, writeInstanceSetting } from '../db/instance-settings.js';
import { type InstanceUsage, INSTANCE_USAGES } from '../domain/plans.js';
import { validationError } from '../errors.js';
import { combineAllowLists, NO_ALLOWED_TARGETS, parseWebhookAllowList, type WebhookAllowList } from '../net/public-address.js';

/** How often an instance reads the settings again: a change on one instance reaches the others within this. */
export const INSTANCE_SETTINGS_REFRESH_MS = 3_000;

/** The instance settings as the admin page shows them. */
export interface InstanceSettingsView {
  usage: InstanceUsage;
  /** FORMGATE_DEFAULT_PLAN is set: plans apply (hosting) and new workspaces start on it, whatever the setting says. */
  defaultPlanFromEnvironment: boolean;
  /** The admin page's allow list, as written. */
  webhookAllow: string;
  /** FORMGATE_WEBHOOK_ALLOW, as written (shown, not editable). */
  webhookAllowEnvironment: string;
  /** FORMGATE_SIGNUP=open: anyone who receives mail can make an account (pages warn against team mode). */
  openSignup: boolean;
  /** Every account must have a second factor (an app or a passkey) to use the dashboard. */
  requireTwoFactor: boolean;
}

/**
 * What the setup page, the admin page and `formgate serve` say when team mode meets open sign-up
 * (issue 38, item 9): team mode trusts every account, open sign-up lets strangers make them.
 */
export const TEAM_MODE_WITH_OPEN_SIGNUP =
  'FORMGATE_SIGNUP=open lets anyone who receives mail make an account here, and team mode gives every workspace, a stranger’s too, every feature with no limit on forms, submissions or members. ' +
  'Workspaces the admin did not make send no autoresponder, redirect no GET link and show no wording of their own until the admin upgrades them; choose “Hosting forms for others” unless you trust everyone who can sign up.';

/**
 * The installation's settings every request may need (team or hosting mode, the webhook allow
 * list), kept in memory and read again in the background when older than
 * INSTANCE_SETTINGS_REFRESH_MS: a reader never waits for the database (the submit path asks for
 * every submission), and one tiny query every few seconds keeps every instance in step.
 */
export class InstanceSettings {
  private usageValue: InstanceUsage = 'hosting';
  private dbAllow: WebhookAllowList = NO_ALLOWED_TARGETS;
  private dbAllowText = '';
  private twoFactorRequired = false;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly database: Database,
    private readonly config: Pick<Config, 'defaultPlanFromEnvironment' | 'webhookAllow' | 'webhookAllowText'> & Partial<Pick<Config, 'signup'>>,
    private readonly options: { refreshMs?: number; now?: () => number } = {},
  ) {}

  /** Team or hosting; hosting when FORMGATE_DEFAULT_PLAN is set, and on an installation that never chose. */
  usage(): InstanceUsage {
    this.refreshIfStale();
    return this.config.defaultPlanFromEnvironment ? 'hosting' : this.usageValue;
  }

  /** The admin page's list and FORMGATE_WEBHOOK_ALLOW, combined. */
  webhookAllow(): WebhookAllowList {
    this.refreshIfStale();
    return combineAllowLists(this.dbAllow, this.config.webhookAllow);
  }

  /** Whether the admin requires a second factor of every account. */
  requireTwoFactor(): boolean {
    this.refreshIfStale();
    return this.twoFactorRequired;
  }

  /** The admin page's "Require two-factor sign-in of everyone". */
  async setRequireTwoFactor(required: boolean): Promise<void> {
    await writeInstanceSetting(this.database.db, REQUIRE_TWO_FACTOR_KEY, required ? '1' : '0');
    await this.refresh();
  }

  view(): InstanceSettingsView {
    return {
      usage: this.usage(),
      defaultPlanFromEnvironment: this.config.defaultPlanFromEnvironment,
      webhookAllow: this.dbAllowText,
      webhookAllowEnvironment: this.config.webhookAllowText,
      openSignup: this.config.signup === 'open',
      requireTwoFactor: this.twoFactorRequired,
    };
  }

  /** Reads the settings now (at start, and after this process changed them). A failed read keeps the last values. */
  refresh(): Promise<void> {
    this.reading ??= this.query().finally(() => (this.reading = null));
    return this.reading;
  }

  /** Sets how the installation is used (the setup page, in the first account's transaction; the admin page). */
  async setUsage(value: string, db: Queryable = this.database.db): Promise<InstanceUsage> {
    if (!(INSTANCE_USAGES as readonly string[]).includes(value)) throw validationError(['usage: choose "For me and my team" or "Hosting forms for others"']);
    await writeInstanceSetting(db, INSTANCE_USAGE_KEY, value);
    if (db === this.database.db) await this.refresh();
    return value as InstanceUsage;
  }

  /** Replaces the admin page's allow list; an entry that is not a network, address or host name refuses the whole list. */
  async setWebhookAllow(text: string): Promise<WebhookAllowList> {
    if (text.length > 4000) throw validationError(['webhookAllow: at most 4,000 characters']);
    const { allow, problems } = parseWebhookAllowList(text);
    if (problems.length > 0) throw validationError(problems.map((p) => `webhookAllow: ${p}`));
    const written = [...allow.networks.map((n) => n.text), ...allow.hosts].join('\n');
    await writeInstanceSetting(this.database.db, WEBHOOK_ALLOW_KEY, written);
    await this.refresh();
    return allow;
  }

  private refreshIfStale(): void {
    const now = (this.options.now ?? Date.now)();
    if (now - this.readAt >= (this.options.refreshMs ?? INSTANCE_SETTINGS_REFRESH_MS) && !this.reading) {
      this.refresh().catch(() => undefined);
    }
  }

  private async query(): Promise<void> {
    const started = (this.options.now ?? Date.now)();
    try {
      const stored = await readInstanceSettings(this.database.db);
      this.usageValue = stored.usage === 'team' ? 'team' : 'hosting';
      // a list stored by an older or newer version is read as far as it can be
      this.dbAllowText = stored.webhookAllow ?? '';
      this.dbAllow = parseWebhookAllowList(this.dbAllowText).allow;
      this.twoFactorRequired = stored.requireTwoFactor === '1';
    } catch {
      // the next read tries again; until then the last values hold
    }
    this.readAt = started;
  }
}

/**
 * What `formgate serve` warns of at start when open sign-up meets settings that trust every
 * account: team mode, a paid FORMGATE_DEFAULT_PLAN (every stranger's workspace starts upgraded,
 * and so vouched for), or notifications sent to any address unconfirmed; null otherwise.
 */
export function openSignupWarning(
  config: Pick<Config, 'signup' | 'defaultPlan' | 'defaultPlanFromEnvironment'> & Partial<Pick<Config, 'confirmRecipients'>>,
  usage: InstanceUsage,
): string | null {
  if (config.signup !== 'open') return null;
  if (usage === 'team') return TEAM_MODE_WITH_OPEN_SIGNUP;
  if (config.confirmRecipients === false) {
    return 'FORMGATE_SIGNUP=open with FORMGATE_CONFIRM_RECIPIENTS=off: any stranger who signs up can list any address on a form and have every submission, with its own subject and sender name, mailed there from this instance. Turn FORMGATE_CONFIRM_RECIPIENTS on.';
  }
  if (config.defaultPlanFromEnvironment && config.defaultPlan !== 'FREE') {
    return `FORMGATE_SIGNUP=open with FORMGATE_DEFAULT_PLAN=${config.defaultPlan}: every stranger who signs up gets an upgraded workspace, with the autoresponder (an email to any address a visitor types), GET redirects and its own wording on the submit domain. Set FORMGATE_DEFAULT_PLAN=FREE and upgrade the workspaces you trust on the admin page.`;
  }
  return null;
}
