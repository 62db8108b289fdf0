import type { FormSecretTable, FormTable } from './form.js';
import type { JobAttemptTable, JobTable } from './job.js';
import type { SubmissionTable } from './submission.js';
import type { TemplateTable } from './template.js';
import type { TokenTable } from './token.js';
import type { SettingTable, UserTable } from './user.js';
import type { WorkspaceMemberTable, WorkspaceTable } from './workspace.js';

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
  jobs: JobTable;
  jobAttempts: JobAttemptTable;
  templates: TemplateTable;
  /** SQLite only: the count of changes to what intake reads of a form (migration 0010). */
  intakeEpoch: { id: number; n: number };
}
