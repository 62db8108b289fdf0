import { sql } from 'kysely';
import type { Config } from '../config/config.js';
import type { Database, Queryable } from '../db/database.js';
import { fromJson } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { fieldsOf, firstLineOf, whoOf } from '../domain/submission-summary.js';
import { ProblemError, validationError } from '../errors.js';
import { EMAIL_KIND, type EmailPayload } from '../jobs/channels/email.js';
import { enqueueJob } from '../jobs/outbox.js';
import { accountEmail } from '../mail/account-mail.js';
import { assignedMessage } from '../mail/assigned-notice.js';
import type { Access } from './forms.js';
import type { MarkScope, SubmissionMarks } from './submission-marks.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';

/** Open until someone of the team marks it done (issue 41, item 5). */
export const TRIAGE_STATES = ['open', 'done'] as const;
export type TriageState = (typeof TRIAGE_STATES)[number];

/** A submission's triage: the team's own marks on it, apart from the API's Submission object. */
export interface SubmissionTriage {
  submissionId: string;
  formId: string;
  status: TriageState;
  /** When it was marked done (ms); null while open. */
  doneAt: number | null;
  /** The member it is assigned to; null: nobody. */
  assigneeId: string | null;
}

/** What a change asks: a new status, a new assignee (null: nobody), or both. */
export interface TriageChange {
  status?: TriageState;
  assigneeId?: string | null;
}

/** Who makes a change: the assignee is told who assigned it to them (the address is read when not given). */
export interface TriageActor {
  id: string;
  email?: string;
}

/** A row's triage as an export writes it: the assignee by address, the labels by name. */
export interface ExportTriage {
  status: TriageState;
  doneAt: string | null;
  assignee: string | null;
  labels: string[];
}

/** An open count stops here: the page says "999+" past it, and a million open cost as little as a thousand. */
export const OPEN_CAP = 1000;

/**
 * Triage (issue 41, items 5 and 6): open or done, and who of the workspace it is assigned to. Every
 * method checks that the account is a member of the submission's workspace (another workspace's id
 * is `not_found`); through the API, that the workspace has the API (`upgrade_required`), as every
 * other submission endpoint does. Assigning someone emails them a link (through the outbox), unless
 * they assigned it to themselves.
 */
export class TriageService {
  // Every page of the inbox counts its open submissions and the viewer's, and lists the members:
  // built once, and prepared once per PostgreSQL connection (db/prepared-query.ts).
  private readonly bothCountQueries = { formId: bothCountsQuery('formId'), workspaceId: bothCountsQuery('workspaceId') };

  // the membership check in the same statement: the list is empty unless the account is a member
  private readonly memberList = new PreparedQuery<{ userId: string; workspaceId: string }, { id: string; email: string }>((db, { userId, workspaceId }) =>
    db
      .selectFrom('workspaceMembers')
      .innerJoin('users', 'users.id', 'workspaceMembers.userId')
      .select(['users.id', 'users.email'])
      .where('workspaceMembers.workspaceId', '=', workspaceId)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('workspaceMembers as viewer').select('viewer.userId').where('viewer.workspaceId', '=', workspaceId).where('viewer.userId', '=', userId),
        ),
      )
      .orderBy('workspaceMembers.createdAt')
      .orderBy('users.email'),
  );

  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly marks: SubmissionMarks,
    private readonly config: Pick<Config, 'publicUrl'>,
  ) {}

  async get(userId: string, submissionId: string, access: Access = {}): Promise<SubmissionTriage> {
    return triageOf(await this.memberSubmission(userId, submissionId, access));
  }

  /** Changes one submission's triage; an assignee must be a member of its workspace (`validation_failed` otherwise). */
  async update(actor: TriageActor, submissionId: string, change: TriageChange, access: Access = {}): Promise<SubmissionTriage> {
    const row = await this.memberSubmission(actor.id, submissionId, access);
    await this.apply(actor, row.workspaceId, [row], change);
    return this.get(actor.id, submissionId, access);
  }

  /** The dashboard's bulk actions: the ids must all be accepted submissions of the scope (`not_found` names the first that is not). */
  async updateMany(actor: TriageActor, scope: MarkScope, ids: string[], change: TriageChange): Promise<number> {
    const wanted = await this.marks.checkInbox(actor.id, scope, ids);
    const rows = await this.rows(this.database.db, wanted);
    if (rows.length === 0) return 0;
    // one workspace: a form's inbox, or a workspace's
    return this.apply(actor, rows[0]!.workspaceId, rows, change);
  }

  /** The triage of listed submissions (one query; the caller listed them, so the access is checked). */
  async triageOf(ids: readonly string[]): Promise<Map<string, SubmissionTriage>> {
    if (ids.length === 0) return new Map();
    const rows = await this.database.db
      .selectFrom('submissions')
      .select(['id', 'formId', 'doneAt', 'assigneeId'])
      .where('id', 'in', [...ids])
      .execute();
    return new Map(rows.map((row) => [row.id, triageOf(row)]));
  }

  /** The triage of exported rows (issue 41, item 9): the assignee by address, the labels by name; two queries a page. */
  async exportTriage(ids: readonly string[]): Promise<Map<string, ExportTriage>> {
    if (ids.length === 0) return new Map();
    const [rows, labels] = await Promise.all([
      this.database.db
        .selectFrom('submissions')
        .leftJoin('users', 'users.id', 'submissions.assigneeId')
        .select(['submissions.id', 'submissions.doneAt', 'users.email'])
        .where('submissions.id', 'in', [...ids])
        .execute(),
      this.database.db
        .selectFrom('submissionLabels')
        .innerJoin('labels', 'labels.id', 'submissionLabels.labelId')
        .select(['submissionLabels.submissionId', 'labels.name'])
        .where('submissionLabels.submissionId', 'in', [...ids])
        .orderBy('labels.folded')
        .execute(),
    ]);
    const named = new Map<string, string[]>();
    for (const label of labels) named.set(label.submissionId, [...(named.get(label.submissionId) ?? []), label.name]);
    return new Map(
      rows.map((row) => {
        const doneAt = row.doneAt === null ? null : Number(row.doneAt);
        return [
          row.id,
          {
            status: doneAt === null ? 'open' : 'done',
            doneAt: doneAt === null ? null : new Date(doneAt).toISOString(),
            assignee: row.email,
            labels: named.get(row.id) ?? [],
          },
        ];
      }),
    );
  }

  /**
   * The inbox's two counts, its open submissions and those of them assigned to `assigneeId` (the
   * viewer's Mine), each up to OPEN_CAP, in one statement: on PostgreSQL one round trip, not two.
   * The caller has checked membership.
   */
  async openCounts(scope: MarkScope, assigneeId: string): Promise<{ open: number; mine: number }> {
    const [column, owner] = 'formId' in scope ? (['formId', scope.formId] as const) : (['workspaceId', scope.workspaceId] as const);
    const row = await this.bothCountQueries[column].executeTakeFirst(this.database.db, { owner, assigneeId });
    return { open: Number(row?.open ?? 0), mine: Number(row?.mine ?? 0) };
  }

  /** The members one can assign a submission of the workspace to: any member, oldest first (`not_found` unless the account is one). */
  async assignees(userId: string, workspaceId: string): Promise<{ id: string; email: string }[]> {
    const members = await this.memberList.execute(this.database.db, { userId, workspaceId });
    // none: the account is not a member (a member lists itself); the workspace service says so as everywhere
    if (members.length === 0) await this.workspaces.getForMember(userId, workspaceId);
    return members;
  }

  private async apply(actor: TriageActor, workspaceId: string, rows: TriageRow[], change: TriageChange): Promise<number> {
    if (change.status === undefined && change.assigneeId === undefined)
      throw validationError(['change: give status, assigneeId or both'], 'Nothing to change.');
    const assignee = change.assigneeId ? await this.member(workspaceId, change.assigneeId) : null;
    const now = Date.now();
    return this.database.transaction(async (trx) => {
      const ids = rows.map((row) => row.id);
      const set: { doneAt?: number | null; assigneeId?: string | null } = {};
      if (change.assigneeId !== undefined) set.assigneeId = change.assigneeId;
      let changed = 0;
      if (change.status !== undefined) {
        // only those not already so: marking done again keeps the first time
        const moved = await trx
          .updateTable('submissions')
          .set({ ...set, doneAt: change.status === 'done' ? now : null })
          .where('id', 'in', ids)
          .where('doneAt', change.status === 'done' ? 'is' : 'is not', null)
          .executeTakeFirst();
        changed = Number(moved.numUpdatedRows);
      }
      if (change.assigneeId !== undefined) {
        const assigned = await trx.updateTable('submissions').set(set).where('id', 'in', ids).executeTakeFirst();
        changed = Math.max(changed, Number(assigned.numUpdatedRows));
      }
      // the assignee hears of those newly theirs, unless they assigned them to themselves
      const newlyTheirs = assignee && assignee.id !== actor.id ? rows.filter((row) => row.assigneeId !== assignee.id) : [];
      if (assignee && newlyTheirs.length > 0) {
        const by = actor.email ?? (await trx.selectFrom('users').select('email').where('id', '=', actor.id).executeTakeFirstOrThrow()).email;
        const message = assignedMessage({ by, publicUrl: this.config.publicUrl, workspaceId, submissions: newlyTheirs.map(summaryOf) });
        await enqueueJob(trx, { kind: EMAIL_KIND, payload: accountEmail(assignee.email, message) satisfies EmailPayload });
      }
      return changed;
    });
  }

  /** The workspace's members, each by id and address. */
  private membersOf(workspaceId: string) {
    return this.database.db
      .selectFrom('workspaceMembers')
      .innerJoin('users', 'users.id', 'workspaceMembers.userId')
      .select(['users.id', 'users.email'])
      .where('workspaceMembers.workspaceId', '=', workspaceId);
  }

  private async member(workspaceId: string, userId: string): Promise<{ id: string; email: string }> {
    const member = await this.membersOf(workspaceId).where('workspaceMembers.userId', '=', userId).executeTakeFirst();
    if (!member) throw validationError(['assigneeId: must be a member of the submission’s workspace'], 'The assignee is not a member of this workspace.');
    return member;
  }

  private async memberSubmission(userId: string, submissionId: string, access: Access): Promise<TriageRow> {
    const row = await this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .innerJoin('workspaces', 'workspaces.id', 'submissions.workspaceId')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .select(TRIAGE_COLUMNS)
      .select('workspaces.plan')
      .where('submissions.id', '=', submissionId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!row) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    if (access.api) requireUpgraded({ id: row.workspaceId, plan: row.plan }, this.workspaces.plans);
    return row;
  }

  private rows(db: Queryable, ids: string[]): Promise<TriageRow[]> {
    return db
      .selectFrom('submissions')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .select(TRIAGE_COLUMNS)
      .where('submissions.id', 'in', ids)
      .execute();
  }
}

const TRIAGE_COLUMNS = [
  'submissions.id',
  'submissions.workspaceId',
  'submissions.formId',
  'forms.name as formName',
  'submissions.data',
  'submissions.doneAt',
  'submissions.assigneeId',
] as const;

type TriageRow = {
  id: string;
  workspaceId: string;
  formId: string;
  formName: string;
  data: unknown;
  doneAt: number | string | null;
  assigneeId: string | null;
};

function triageOf(row: Pick<TriageRow, 'id' | 'formId' | 'doneAt' | 'assigneeId'>): SubmissionTriage {
  const doneAt = row.doneAt === null ? null : Number(row.doneAt);
  return { submissionId: row.id, formId: row.formId, status: doneAt === null ? 'open' : 'done', doneAt, assigneeId: row.assigneeId };
}

function summaryOf(row: TriageRow) {
  const data = fieldsOf(fromJson(row.data));
  return { id: row.id, formName: row.formName, who: whoOf(data), firstLine: firstLineOf(data) };
}

/** A person leaves a workspace (or is removed): what was assigned to them there is assigned to nobody. */
export async function unassignLeaver(db: Queryable, workspaceId: string, userId: string): Promise<void> {
  await db.updateTable('submissions').set({ assigneeId: null }).where('assigneeId', '=', userId).where('workspaceId', '=', workspaceId).execute();
}

/**
 * The open accepted submissions of a form or a workspace and those of them assigned to `assigneeId`,
 * each counted up to OPEN_CAP, as the two columns of one row. NOTE: the status and the cap are
 * literals, so that PostgreSQL matches the partial indexes' own conditions whether it plans the
 * prepared statement for its parameters or generically.
 */
function bothCountsQuery(column: 'formId' | 'workspaceId') {
  return new PreparedQuery<{ owner: string; assigneeId: string }, { open: number | string; mine: number | string }>((db, { owner, assigneeId }) =>
    db.selectNoFrom((eb) => [
      eb
        .selectFrom(openRows(db, column, owner).as('open'))
        .select((inner) => inner.fn.countAll<number | string>().as('n'))
        .as('open'),
      eb
        .selectFrom(openRows(db, column, owner, assigneeId).as('mine'))
        .select((inner) => inner.fn.countAll<number | string>().as('n'))
        .as('mine'),
    ]),
  );
}

/** Up to OPEN_CAP open accepted submissions of the form or workspace (the assignee's only, when given). */
function openRows(db: Queryable, column: 'formId' | 'workspaceId', owner: string, assigneeId?: string) {
  let open = db
    .selectFrom('submissions')
    .select('submissions.id')
    .where(`submissions.${column}`, '=', owner)
    .where('submissions.status', '=', sql.lit('accepted'))
    .where('submissions.doneAt', 'is', null);
  if (assigneeId !== undefined) open = open.where('submissions.assigneeId', '=', assigneeId);
  return open.limit(sql.lit(OPEN_CAP));
}
