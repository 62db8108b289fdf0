import type { Config } from '../config/config.js';
import { fromJson, type Database } from '../db/database.js';
import type { PlanRules } from '../domain/plans.js';
import { fieldsOf, firstLineOf, senderOf } from '../domain/submission-summary.js';
import { submitterAddress } from '../domain/submitter-address.js';
import { ProblemError } from '../errors.js';
import { storedEmailControls } from '../jobs/channels/channel.js';
import type { Keyring } from '../keyring.js';
import { markNotSpam, type NotSpamOutcome, reasonsOf } from './quarantine.js';

/** How long a digest's "Not spam" link works: two digests of a weekly workspace, within the spam retention's default 30 days. */
export const NOT_SPAM_LINK_DAYS = 14;
const LINK_LIFETIME_MS = NOT_SPAM_LINK_DAYS * 24 * 60 * 60 * 1000;

/** What a link's page shows of the submission it names. */
export interface NotSpamView {
  submissionId: string;
  formName: string;
  workspaceName: string;
  sender: string | null;
  firstLine: string;
  reasons: string[];
  createdAt: number;
  /** `spam`: the button is offered; `accepted`/`held`: it left the spam folder already. */
  status: 'spam' | 'accepted' | 'held';
}

const LINK_NOT_VALID = 'This link is not valid: it was changed, it expired, or you are no longer a member of the workspace.';

/**
 * The digest's one-click "Not spam" (issue 40, item 3): a link signed for one submission and one
 * member, that works without a login until it expires. Opening it only shows (mail scanners follow
 * links); using it is a POST, which does what the member's own "Not spam" does, as that member.
 */
export class NotSpamLinks {
  private readonly keys: Keyring;

  constructor(
    private readonly database: Database,
    keyring: Keyring,
    private readonly config: Pick<Config, 'publicUrl'>,
    private readonly plans: PlanRules,
  ) {
    this.keys = keyring.derive('not-spam-links');
  }

  /** The link for `userId` to take `submissionId` out of the spam folder, working until `now` + 14 days. */
  url(submissionId: string, userId: string, now = Date.now()): string {
    const expires = Math.floor((now + LINK_LIFETIME_MS) / 1000);
    const claim = `${submissionId}.${userId}.${expires}`;
    return `${this.config.publicUrl}/not-spam/${claim}.${this.keys.sign(claim)}`;
  }

  /** The submission and member a token names, if its signature holds and it has not expired; null otherwise. */
  read(token: string, now = Date.now()): { submissionId: string; userId: string } | null {
    const parts = token.split('.');
    if (parts.length !== 4 || token.length > 200) return null;
    const [submissionId, userId, expires, mac] = parts as [string, string, string, string];
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= now) return null;
    if (!this.keys.verify(`${submissionId}.${userId}.${expires}`, mac)) return null;
    return { submissionId, userId };
  }

  /** What the link's page shows; `not_found` for a token that does not hold, or a member who left, or a submission no longer stored. */
  async open(token: string, now = Date.now()): Promise<NotSpamView> {
    const claim = this.read(token, now);
    if (!claim) throw new ProblemError('not_found', LINK_NOT_VALID);
    const row = await this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .innerJoin('workspaces', 'workspaces.id', 'submissions.workspaceId')
      .select(['submissions.id', 'submissions.data', 'submissions.emailControls', 'submissions.status', 'submissions.spamReasons', 'submissions.createdAt'])
      .select(['forms.name as formName', 'workspaces.name as workspaceName'])
      .where('submissions.id', '=', claim.submissionId)
      .where('workspaceMembers.userId', '=', claim.userId)
      .executeTakeFirst();
    if (!row) throw new ProblemError('not_found', LINK_NOT_VALID);
    const data = fieldsOf(fromJson(row.data));
    return {
      submissionId: row.id,
      formName: row.formName,
      workspaceName: row.workspaceName,
      sender: senderOf(data, submitterAddress({ data, controls: storedEmailControls(row.emailControls) })),
      firstLine: firstLineOf(data),
      reasons: reasonsOf(row.spamReasons),
      createdAt: row.createdAt,
      status: row.status,
    };
  }

  /**
   * "Not spam" as the link's member: into the inbox, counted and delivered as quarantine.ts decides
   * (only what never went out is sent). `not_found` as for `open`; `conflict` when it is no longer spam.
   */
  use(token: string, now = Date.now()): Promise<NotSpamOutcome & { userId: string; submissionId: string }> {
    const claim = this.read(token, now);
    if (!claim) return Promise.reject(new ProblemError('not_found', LINK_NOT_VALID));
    return markNotSpam(this.database, this.config, claim.userId, claim.submissionId, this.plans).then(
      (outcome) => ({ ...outcome, ...claim }),
      (error: unknown) => {
        if (error instanceof ProblemError && error.code === 'not_found') throw new ProblemError('not_found', LINK_NOT_VALID);
        throw error;
      },
    );
  }
}
