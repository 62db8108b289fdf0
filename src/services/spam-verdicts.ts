import type { Database } from '../db/database.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import type { PlanRules } from '../domain/plans.js';
import { ProblemError } from '../errors.js';
import type { Access, FormService } from './forms.js';
import type { Page, PageRequest } from './pagination.js';
import { type FolderRow, listFolder } from './quarantine.js';
import type { SubmissionMarks } from './submission-marks.js';
import type { SubmissionService } from './submissions.js';
import { requireUpgraded } from './workspaces.js';

/** A submission as a verdict is given on it; `data` as stored (JSON text, or parsed on PostgreSQL). */
export interface VerdictSubject {
  id: string;
  formId: string;
  data: unknown;
  createdAt: number;
}

/** What "Not spam" did: where the submission went, and whether its deliveries go out now, went out before, or wait for its release. */
export interface NotSpamVerdict {
  submission: VerdictSubject;
  status: 'accepted' | 'held';
  deliveries: 'queued' | 'earlier' | 'on_release';
}

/**
 * One submission's spam verdict, corrected by an API client (issue 40, item 6): the spam folder,
 * "Mark as spam" and "Not spam" of the dashboard, each answering what became of the submission.
 * The moves themselves are SubmissionMarks.markSpam and SubmissionService.markNotSpam, as the
 * dashboard's, so both surfaces follow one set of rules.
 */
export class SpamVerdicts {
  constructor(
    private readonly database: Database,
    private readonly forms: FormService,
    private readonly submissions: SubmissionService,
    private readonly marks: SubmissionMarks,
    private readonly plans: PlanRules,
  ) {}

  /** A form's spam folder, newest first: membership first (`not_found`), then the plan (`upgrade_required` through the API). */
  async listSpam(userId: string, formId: string, page: PageRequest, access: Access = {}): Promise<Page<FolderRow>> {
    await this.forms.formForMember(userId, formId, access);
    return listFolder(this.database, formId, 'spam', page);
  }

  /**
   * "Mark as spam" on one accepted submission, marked by the account's address; answers it as the
   * spam folder lists it. One already spam, or held, is `409 conflict`: nothing moved.
   */
  async markSpam(userId: string, submissionId: string, access: Access = {}): Promise<FolderRow> {
    const found = await this.memberSubmission(userId, submissionId, access);
    if (found.status !== 'accepted') throw notInInbox(found.status);
    // NOTE: markSpam answers a submission no longer in the inbox (another request moved or deleted it since) as not_found, or moves none
    const moved = await this.marks.markSpam(userId, found.email, { formId: found.formId }, [submissionId]).catch((error: unknown) => {
      if (error instanceof ProblemError && error.code === 'not_found') return 0;
      throw error;
    });
    const now = await this.submissions.getSubmission(userId, submissionId);
    if (moved === 0) throw notInInbox(now.status);
    return { id: now.id, formId: now.formId, data: now.data, createdAt: now.createdAt, spamReasons: now.spamReasons };
  }

  /**
   * "Not spam" on one quarantined submission (SubmissionService.markNotSpam): counted, delivered or
   * held as the dashboard's. One that is not spam is `409 conflict` from the service itself.
   */
  async markNotSpam(userId: string, submissionId: string, access: Access = {}): Promise<NotSpamVerdict> {
    const found = await this.memberSubmission(userId, submissionId, access);
    const outcome = await this.submissions.markNotSpam(userId, submissionId);
    const deliveries = outcome.returned ? 'earlier' : outcome.status === 'accepted' ? 'queued' : 'on_release';
    const { id, formId, data, createdAt } = found;
    return { submission: { id, formId, data, createdAt }, status: outcome.status, deliveries };
  }

  /** The submission, if the account is a member of its workspace (`not_found` otherwise, as for an id that never was); through the API, only upgraded. */
  private async memberSubmission(userId: string, submissionId: string, access: Access) {
    const found = await this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .innerJoin('workspaces', 'workspaces.id', 'submissions.workspaceId')
      .innerJoin('users', 'users.id', 'workspaceMembers.userId')
      .select(['submissions.id', 'submissions.formId', 'submissions.data', 'submissions.createdAt', 'submissions.status', 'submissions.workspaceId'])
      .select(['workspaces.plan', 'users.email'])
      .where('submissions.id', '=', submissionId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!found) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    if (access.api) requireUpgraded({ id: found.workspaceId, plan: found.plan }, this.plans);
    return found;
  }
}

/** A submission that is not in the inbox cannot be marked as spam. */
function notInInbox(status: SubmissionStatus): ProblemError {
  return new ProblemError(
    'conflict',
    status === 'spam'
      ? 'This submission is already in the spam folder.'
      : status === 'held'
        ? 'This submission is held past the allowance, not in the inbox: only a submission of the inbox can be marked as spam.'
        : 'Another request changed this submission at the same moment; nothing moved. Try again.',
  );
}
