import type { AltchaSpentChallengeTable } from './altcha.js';
import type { AuditEventTable } from './audit-event.js';
import type { AutomationKeyTable, HookTable } from './automation.js';
import type { FormDestinationTable } from './destination.js';
import type { DailyCountTable, UnreadCountTable } from './daily-count.js';
import type { InvitationTable } from './invitation.js';
import type { PasskeyTable, PasswordResetTable, RecoveryCodeTable, RememberedBrowserTable, SessionTable } from './session.js';
import type { FormSecretTable, FormTable } from './form.js';
import type { JobAttemptTable, JobTable } from './job.js';
import type { RecipientConfirmationTable } from './recipient-confirmation.js';
import type { SubmissionTable } from './submission.js';
import type { SubmissionFileTable, UnclaimedFileTable } from './submission-file.js';
import type { TemplateTable } from './template.js';
import type { TokenTable } from './token.js';
import type { SettingTable, UserTable } from './user.js';
import type { FileReservationTable, SpamDayTable, WorkspaceMemberTable, WorkspaceTable } from './workspace.js';
import type { SpamDigestTable } from './spam-digest.js';
import type { LabelTable, SubmissionLabelTable } from './label.js';
import type { OidcLinkTable } from './oidc-link.js';
import type { PasskeyChallengeTable } from './passkey-challenge.js';
import type { SpamModelTable, SpamTokenTable } from './spam-model.js';

/** What `change_counts` counts the changes of (migration 0010), and what PostgreSQL's triggers notify (0023). */
export type ChangeCounted = 'intake_forms' | 'tokens' | 'spam_models';

/** The whole schema as Kysely sees it (camelCase; the tables are snake_case). */
export interface DB {
  settings: SettingTable;
  users: UserTable;
  workspaces: WorkspaceTable;
  workspaceMembers: WorkspaceMemberTable;
  tokens: TokenTable;
  forms: FormTable;
  formSecrets: FormSecretTable;
  submissions: SubmissionTable;
  submissionFiles: SubmissionFileTable;
  unclaimedFiles: UnclaimedFileTable;
  fileReservations: FileReservationTable;
  spamDays: SpamDayTable;
  spamDigests: SpamDigestTable;
  labels: LabelTable;
  submissionLabels: SubmissionLabelTable;
  spamModels: SpamModelTable;
  spamTokens: SpamTokenTable;
  jobs: JobTable;
  jobAttempts: JobAttemptTable;
  templates: TemplateTable;
  sessions: SessionTable;
  passwordResets: PasswordResetTable;
  recoveryCodes: RecoveryCodeTable;
  passkeys: PasskeyTable;
  passkeyChallenges: PasskeyChallengeTable;
  rememberedBrowsers: RememberedBrowserTable;
  invitations: InvitationTable;
  dailyCounts: DailyCountTable;
  unreadCounts: UnreadCountTable;
  recipientConfirmations: RecipientConfirmationTable;
  altchaSpentChallenges: AltchaSpentChallengeTable;
  automationKeys: AutomationKeyTable;
  hooks: HookTable;
  formDestinations: FormDestinationTable;
  auditEvents: AuditEventTable;
  oidcLinks: OidcLinkTable;
  /** SQLite only: counts of the changes to rows kept in memory (migration 0010, db/kept-rows.ts). */
  changeCounts: { name: ChangeCounted; n: number };
}
