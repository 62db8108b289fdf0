import { randomBytes } from 'node:crypto';
import type { Config } from './config/config.js';
import { sql } from 'kysely';
import { Database, describeDatabase, MissingDatabaseError } from './db/database.js';
import { migrateToLatest } from './db/migrations/index.js';
import { type StartupLog, waitForDatabase } from './db/startup-wait.js';
import { createPostgresDatabase, isMissingPostgresDatabase } from './db/create-database.js';
import { isStorageUnavailable } from './db/storage-errors.js';
import { MailHealth } from './mail/mail-health.js';
import { Metrics } from './metrics/metrics.js';
import { Keyring } from './keyring.js';
import { AltchaSpentChallenges } from './db/altcha-spent-challenges.js';
import { Altcha } from './spam/altcha.js';
import type { FileStore } from './files/file-store.js';
import { openFileStore } from './files/open-file-store.js';
import { OutboundGuard } from './net/outbound-guard.js';
import { FileLinks } from './files/signed-links.js';
import { SubmissionFiles } from './services/submission-files.js';
import { createAutoresponderChecker } from './mail/template-check.js';
import { AdminService } from './services/admin.js';
import { AuditLog } from './services/audit-log.js';
import { AuditEvents } from './services/audit-events.js';
import { currentAuditScene } from './web/audit-scene.js';
import { InstanceSettings } from './services/instance-settings.js';
import { SetupService } from './services/setup.js';
import { PlanRules } from './domain/plans.js';
import { DeliveryService } from './services/deliveries.js';
import { DeliveryPauseService } from './services/delivery-pause.js';
import { DeliverySwitch } from './jobs/delivery-switch.js';
import { FormService } from './services/forms.js';
import { PasswordResetService } from './services/password-resets.js';
import { InvitationService } from './services/invitations.js';
import { CONFIRMATIONS_PER_INSTANCE_HOUR, RecipientService, type WithheldBy } from './services/recipients.js';
import { SessionService } from './services/sessions.js';
import { SealedValues } from './services/sealed-values.js';
import { OidcAccounts } from './services/oidc-accounts.js';
import { OidcClient } from './services/oidc-client.js';
import { OidcSettings } from './services/oidc-settings.js';
import { TwoFactorService } from './services/two-factor.js';
import { RememberedBrowsers } from './services/remembered-browsers.js';
import { PasskeyService } from './services/passkeys.js';
import { SignupLinks } from './services/signup-links.js';
import { SignupService } from './services/signups.js';
import { ErasureService } from './services/erasure.js';
import { ExportService } from './services/exports.js';
import { StatsService } from './services/stats.js';
import { SubmissionService } from './services/submissions.js';
import { TriageService } from './services/triage.js';
import { LabelService } from './services/labels.js';
import { SavedViewService } from './services/saved-views.js';
import { SubmissionMarks } from './services/submission-marks.js';
import { NotSpamLinks } from './services/not-spam-links.js';
import { SpamDigests } from './services/spam-digests.js';
import { AssignedDigests } from './services/assigned-digests.js';
import { SpamVerdicts } from './services/spam-verdicts.js';
import { TimeZoneSetting } from './services/time-zone-setting.js';
import { TeamService } from './services/team.js';
import { TemplateService } from './services/templates.js';
import { TestSubmissionService } from './services/test-submissions.js';
import { ChatChannelService } from './services/chat-channels.js';
import { DestinationService } from './services/destinations.js';
import { WebhookBodyService } from './services/webhook-bodies.js';
import { TokenService } from './services/tokens.js';
import { AutomationKeys } from './services/automation-keys.js';
import { HookService } from './services/hooks.js';
import { UserService } from './services/users.js';
import { WorkspaceService } from './services/workspaces.js';
import { WorkspaceDeletion } from './services/workspace-deletion.js';
import { VisitorLoad } from './submit/visitor-load.js';
import { CursorCodec } from './web/pagination.js';

/** Everything a surface or command needs, built in one place. */
export interface AppContext {
  config: Config;
  database: Database;
  /** The installation's current signing secret (cursors, thank-you links, sign-up links, cookies). */
  secret: string;
  /** The current secret and the previous ones still accepted (FORMGATE_SECRET_PREVIOUS): every signer uses it. */
  keyring: Keyring;
  cursors: CursorCodec;
  users: UserService;
  /** Team or hosting mode and the webhook allow list: the admin page's settings, cached (read every 3 s at most). */
  instance: InstanceSettings;
  /** The plan rules as this installation applies them (team mode: everything, no caps); cheap to ask. */
  plans: PlanRules;
  /** The first account and how the installation is used (the "Set up Formgate" page). */
  setup: SetupService;
  tokens: TokenService;
  /** Second factors: an authenticator app and recovery codes (issue 43). */
  twoFactor: TwoFactorService;
  /** Browsers that skip the second factor for 30 days. */
  rememberedBrowsers: RememberedBrowsers;
  /** Passkeys (WebAuthn): add, name, remove; sign in with one alone or as the second factor (issue 43, item 2). */
  passkeys: PasskeyService;
  /** Single sign-on's settings: FORMGATE_OIDC_* over the admin page's /admin/sign-in (issue 43, item 3). */
  oidcSettings: OidcSettings;
  /** The OpenID Connect relying party: discovery, the code flow with PKCE, the ID token's checks. */
  oidcClient: OidcClient;
  /** Which account the provider's person is: links by `sub`, verified emails, new accounts, membership rules. */
  oidcAccounts: OidcAccounts;
  /** The workspaces' automation-tool keys (issue 42, item 1). */
  automationKeys: AutomationKeys;
  /** The automation platforms' REST-hook subscriptions (issue 42, item 2). */
  hooks: HookService;
  /** Dashboard logins. */
  sessions: SessionService;
  /** Emailed links that set a forgotten password. */
  passwordResets: PasswordResetService;
  /** Open sign-up by emailed link (FORMGATE_SIGNUP=open). */
  signups: SignupService;
  workspaces: WorkspaceService;
  /** An owner deleting a workspace with everything in it. */
  workspaceDeletion: WorkspaceDeletion;
  /** The instance admin's page. */
  admin: AdminService;
  /** A workspace's members: listing, removing, leaving. */
  team: TeamService;
  /** Emailed invitations to a workspace's team. */
  invitations: InvitationService;
  forms: FormService;
  /** Whether notification addresses outside a workspace's team confirmed they want its notifications. */
  recipients: RecipientService;
  submissions: SubmissionService;
  /** CSV and JSON exports of submissions, streamed. */
  exports: ExportService;
  /** Erasing a person: every submission of a workspace holding an email address, found and deleted. */
  erasure: ErasureService;
  templates: TemplateService;
  /** The delivery log and its retries. */
  deliveries: DeliveryService;
  /** Whether deliveries are paused (FORMGATE_DELIVERIES or the database's switch), read every 2 s at most. */
  deliverySwitch: DeliverySwitch;
  /** Pausing and resuming every instance's deliveries, and how many wait. */
  deliveryPause: DeliveryPauseService;
  /** Submissions per day (daily_counts): the dashboard's charts and forms list. */
  stats: StatsService;
  /** The dashboard's "Send a test submission" and where it went. */
  testSubmissions: TestSubmissionService;
  chatChannels: ChatChannelService;
  /** A form's destinations: Airtable, Notion, Google Sheets, newsletter lists (docs/destinations.md). */
  destinations: DestinationService;
  /** A form's webhook body: its format and template (docs/webhooks.md, Body templates). */
  webhookBodies: WebhookBodyService;
  /** The one gate of requests to addresses owners chose (webhooks, chat channels, their tests): the allow list of the admin page and FORMGATE_WEBHOOK_ALLOW. */
  outbound: OutboundGuard;
  /** Visitors waiting on the submit surface: deliveries yield to them when the process is saturated. */
  visitors: VisitorLoad;
  /** Where uploaded files' bytes live (FORMGATE_FILES): a folder or an S3-compatible bucket. */
  files: FileStore;
  /** A file's address of the management API, and signed, expiring ones for webhooks and Slack. */
  fileLinks: FileLinks;
  /** The files of submissions as pages and exports list them, and one file's bytes for a download. */
  submissionFiles: SubmissionFiles;
  /** Read and unread, spam by hand, notes, and Previous and Next of the inbox (issue 29). */
  submissionMarks: SubmissionMarks;
  /** Open or done, and who it is assigned to (issue 41). */
  triage: TriageService;
  /** A workspace's labels, and which submissions carry them (issue 41). */
  labels: LabelService;
  savedViews: SavedViewService;
  /** The spam folder of the API: one submission marked as spam or "Not spam", answering what became of it (issue 40, item 6). */
  spamVerdicts: SpamVerdicts;
  /** The spam digest emails and their settings (issue 40, item 3). */
  spamDigests: SpamDigests;
  /** The daily digest of what is open and assigned to a member, and its setting (issue 41, item 6). */
  assignedDigests: AssignedDigests;
  /** The digest's signed "Not spam" links, which work without a login. */
  notSpamLinks: NotSpamLinks;
  /** The account's time zone for the dashboard's times. */
  timeZoneSetting: TimeZoneSetting;
  /** ALTCHA, the CAPTCHA Formgate runs itself: challenges issued on the submit surface and checked by the intake pipeline. */
  altcha: Altcha;
  /** The ALTCHA challenges already answered, shared by every instance; purged hourly once expired. */
  altchaSpent: AltchaSpentChallenges;
  /** The outcome of the last email and whether the SMTP server answers, for `/healthz`. */
  mailHealth: MailHealth;
  /** The audit log: who changed what, when, from where (issue 43, item 4); the services record into it. */
  audit: AuditLog;
  /** The audit log as owners (their workspace) and the instance admin (everything) read it. */
  auditEvents: AuditEvents;
  /** Prometheus metrics; null when FORMGATE_METRICS is off, so that nothing counts per request. */
  metrics: Metrics | null;
  /** Where each problem code is documented: `{publicUrl}/docs/errors`. */
  errorsDocUrl(): string;
  /** Whether an error says the database cannot take a write right now (db/storage-errors.ts): every surface answers it 503 without importing db. */
  isStorageUnavailable(error: unknown): boolean;
  close(): Promise<void>;
}

/**
 * Opens the database, brings its schema up to date, and builds the services on it. `existing`: the
 * database must already hold Formgate's schema (admin commands), so a command run from the wrong
 * folder or against the wrong URL says so instead of setting up an empty database there. `logger`
 * hears the waits for a database still starting and the migrations applied (silence without one).
 */
export async function openContext(config: Config, options: { existing?: boolean; logger?: StartupLog & Partial<WarningLog> } = {}): Promise<AppContext> {
  const log = options.logger ?? { info: () => undefined };
  const database = Database.open(config.database, { mustExist: options.existing });
  try {
    await waitForPostgresDatabase(database, config, options.existing === true, log);
    if (options.existing && !(await holdsFormgate(database))) throw new MissingDatabaseError(config.database, 'holds no Formgate data');
    await logMigrations(database, config, log);
    const secret = config.secret ?? (await installationSecret(database));
    const keyring = new Keyring(secret, config.secretPrevious);
    const instance = new InstanceSettings(database, config);
    await instance.refresh();
    const plans = new PlanRules(() => instance.usage());
    const audit = new AuditLog(database, currentAuditScene, (group) => metrics?.auditRecorded(group));
    const users = new UserService(database, config.defaultPlan, audit);
    const workspaces = new WorkspaceService(database, users, config, plans, audit);
    const metrics = config.metrics.enabled ? new Metrics() : null;
    metrics?.addressChecksOff(config.allowPrivateWebhooks);
    const recipients = new RecipientService(database, config, withheldLinkLog(metrics, options.logger));
    const files = openFileStore(config.files, metrics);
    const outbound = new OutboundGuard({ allowPrivate: config.allowPrivateWebhooks, allow: () => instance.webhookAllow() });
    const forms = new FormService(database, workspaces, outbound, recipients, audit, files);
    const submissions = new SubmissionService(database, workspaces, forms, config, audit, files);
    const sessions = new SessionService(database, { idleMs: config.sessionIdleMs, absoluteMs: config.sessionMaxAgeMs }, audit);
    const team = new TeamService(database, workspaces, recipients, audit);
    const automationKeys = new AutomationKeys(database, team, audit);
    const fileLinks = new FileLinks(
      keyring,
      () => config.baseUrl,
      () => config.publicUrl,
    );
    const submissionFiles = new SubmissionFiles(database, files, audit, plans);
    const deliverySwitch = new DeliverySwitch(database, { environmentPaused: config.deliveriesPaused });
    const submissionMarks = new SubmissionMarks(database);
    const triage = new TriageService(database, workspaces, submissionMarks, config);
    const notSpamLinks = new NotSpamLinks(database, keyring, config, plans);
    const altchaSpent = new AltchaSpentChallenges(database);
    return {
      config,
      database,
      secret,
      keyring,
      cursors: new CursorCodec(keyring),
      users,
      instance,
      plans,
      setup: new SetupService(users, instance),
      tokens: new TokenService(database, config, audit, automationKeys),
      twoFactor: new TwoFactorService(database, new SealedValues(keyring.derive('formgate-two-factor')), audit),
      rememberedBrowsers: new RememberedBrowsers(database, audit),
      oidcSettings: new OidcSettings(database, config, new SealedValues(keyring.derive('formgate-oidc')), audit),
      oidcClient: new OidcClient(),
      oidcAccounts: new OidcAccounts(database, users, plans, audit),
      passkeys: new PasskeyService(database, config, audit),
      automationKeys,
      hooks: new HookService(database, workspaces, outbound, audit),
      sessions,
      passwordResets: new PasswordResetService(database, users, sessions, config, audit),
      signups: new SignupService(database, users, new SignupLinks(keyring), config),
      workspaces,
      workspaceDeletion: new WorkspaceDeletion(database, workspaces, team, files, audit),
      admin: new AdminService(database, workspaces, instance, audit, files),
      team,
      invitations: new InvitationService(database, users, team, config, audit),
      forms,
      recipients,
      submissions,
      exports: new ExportService(submissions, forms, workspaces, audit, { files: submissionFiles, links: fileLinks }, triage),
      erasure: new ErasureService(database, workspaces, audit, metrics, files),
      templates: new TemplateService(database, forms, createAutoresponderChecker({ spamd: config.spamd, mailFrom: config.mailFrom }), config, audit),
      deliveries: new DeliveryService(database, () => instance.usage()),
      deliverySwitch,
      deliveryPause: new DeliveryPauseService(database, deliverySwitch, audit),
      stats: new StatsService(database, forms),
      testSubmissions: new TestSubmissionService(database, forms, () => instance.usage()),
      chatChannels: new ChatChannelService(database, forms, { outbound, telegramApiUrl: config.telegramApiUrl }, audit, () => instance.usage()),
      destinations: new DestinationService(database, forms, { outbound, apis: config.destinationApis }, audit, () => instance.usage()),
      webhookBodies: new WebhookBodyService(database, forms, audit),
      outbound,
      visitors: new VisitorLoad(),
      files,
      submissionFiles,
      submissionMarks,
      triage,
      labels: new LabelService(database, workspaces, submissionMarks, audit),
      savedViews: new SavedViewService(database, workspaces),
      spamDigests: new SpamDigests(database, workspaces, notSpamLinks, config, audit),
      assignedDigests: new AssignedDigests(database, workspaces, config),
      notSpamLinks,
      spamVerdicts: new SpamVerdicts(database, forms, submissions, submissionMarks, plans),
      timeZoneSetting: new TimeZoneSetting(database),
      altcha: new Altcha(keyring, altchaSpent),
      altchaSpent,
      fileLinks,
      mailHealth: new MailHealth(config),
      audit,
      auditEvents: new AuditEvents(audit, workspaces, team),
      metrics,
      errorsDocUrl: () => `${config.publicUrl}/docs/errors`,
      isStorageUnavailable,
      close: () => database.destroy(),
    };
  } catch (error) {
    await database.destroy();
    throw error;
  }
}

/**
 * Waits for PostgreSQL (waitForDatabase); a database that is not there is created unless it must
 * exist (the admin commands), and refused naming `formgate migrate` when it must.
 */
async function waitForPostgresDatabase(database: Database, config: Config, mustExist: boolean, log: StartupLog): Promise<void> {
  try {
    await waitForDatabase(database, config.database, config.startupWaitMs, log);
  } catch (error) {
    if (config.database.dialect !== 'postgres' || !isMissingPostgresDatabase(error)) throw error;
    if (mustExist) throw new MissingDatabaseError(config.database);
    const name = await createPostgresDatabase(config.database.url);
    log.info(`created the database ${name} on PostgreSQL at ${describeDatabase(config.database)}`);
    await waitForDatabase(database, config.database, config.startupWaitMs, log);
  }
}

/** Says which migrations were applied and how long each took: an operator upgrading wants to see the schema change. */
async function logMigrations(database: Database, config: Config, log: StartupLog): Promise<void> {
  const started = Date.now();
  const applied = await migrateToLatest(database, (name, ms) => log.info(`migration ${name} ran in ${ms} ms`), describeDatabase(config.database));
  if (applied.length > 0) log.info(`database schema brought up to date: ${applied.length} migration(s) in ${Date.now() - started} ms`);
}

/** Whether `formgate serve` (or an earlier version of it) has ever set this database up. */
async function holdsFormgate(database: Database): Promise<boolean> {
  try {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from kysely_migration`.execute(database.db);
    return Number(rows[0]?.n ?? 0) > 0;
  } catch {
    return false;
  }
}

/** The signing secret generated on first start and kept in the database, shared by every instance. */
async function installationSecret(database: Database): Promise<string> {
  await database.db
    .insertInto('settings')
    .values({ key: 'secret', value: randomBytes(32).toString('base64url'), createdAt: Date.now() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await database.db.selectFrom('settings').select('value').where('key', '=', 'secret').executeTakeFirstOrThrow();
  return row.value;
}

/** What can warn with fields (pino's logger, as `formgate serve` passes it). */
interface WarningLog {
  warn(fields: object, message: string): void;
}

// NOTE: at most one warning per minute: a stranger reaching the instance's allowance would otherwise write one line per saved form
const WITHHELD_WARNING_EVERY_MS = 60_000;

/** Counts each confirmation link an allowance kept back, and warns when it was the instance's. */
function withheldLinkLog(metrics: Metrics | null, logger: Partial<WarningLog> | undefined): (by: WithheldBy, workspaceId: string) => void {
  let warnedAt = Number.NEGATIVE_INFINITY;
  return (by, workspaceId) => {
    metrics?.confirmationLinkWithheld(by);
    if (by !== 'instance' || !logger?.warn || Date.now() - warnedAt < WITHHELD_WARNING_EVERY_MS) return;
    warnedAt = Date.now();
    logger.warn(
      { workspaceId, cap: CONFIRMATIONS_PER_INSTANCE_HOUR },
      `confirmation links withheld: this instance sent ${CONFIRMATIONS_PER_INSTANCE_HOUR} in the last hour for workspaces made by open sign-up; the addresses wait for Send link`,
    );
  };
}
