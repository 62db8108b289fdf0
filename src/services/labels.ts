import type { Database, Queryable } from '../db/database.js';
import { PreparedListQuery } from '../db/prepared-list-query.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { isLabelColor, LABEL_COLORS, LABEL_NAME_MAX, LABELS_PER_WORKSPACE, type Label, type LabelColor } from '../domain/labels.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import type { MarkScope, SubmissionMarks } from './submission-marks.js';
import type { WorkspaceService } from './workspaces.js';
import type { AuditLog } from './audit-log.js';

/** How a label id that is not the workspace's is answered: a bad field of a body (the API), or not found (the dashboard's forms). */
type UnknownLabel = 'validation_error' | 'not_found';

/** A label as typed: a name and a colour. */
export interface LabelInput {
  name?: unknown;
  color?: unknown;
}

/**
 * Labels (issue 41, item 7): each workspace's own, named and coloured, many per submission. Any
 * member manages them and puts them on the workspace's submissions; another workspace's label or
 * submission is `not_found`, and a label of one workspace never reaches another's submission.
 */
export class LabelService {
  // Every page of the inbox lists the workspace's labels and those of its rows: built once, and
  // prepared once per PostgreSQL connection (db/prepared-query.ts). The membership check is in the
  // same statement: the list is empty unless the account is a member.
  private readonly memberLabels = new PreparedQuery<{ userId: string; workspaceId: string }, { id: string; name: string; color: string }>(
    (db, { userId, workspaceId }) =>
      db
        .selectFrom('labels')
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'labels.workspaceId')
        .select(['labels.id', 'labels.name', 'labels.color'])
        .where('labels.workspaceId', '=', workspaceId)
        .where('workspaceMembers.userId', '=', userId)
        .orderBy('labels.folded'),
  );
  private readonly pageLabels = new PreparedListQuery((db, _: Record<string, never>, ids) =>
    db
      .selectFrom('submissionLabels')
      .innerJoin('labels', 'labels.id', 'submissionLabels.labelId')
      .select(['submissionLabels.submissionId', 'labels.id', 'labels.name', 'labels.color'])
      .where('submissionLabels.submissionId', 'in', ids)
      .orderBy('labels.folded'),
  );

  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly marks: SubmissionMarks,
    private readonly audit: AuditLog,
  ) {}

  /** The workspace's labels by name, for any member. */
  async list(userId: string, workspaceId: string): Promise<Label[]> {
    const labels = (await this.memberLabels.execute(this.database.db, { userId, workspaceId })) as Label[];
    // none: no labels, or not a member; the workspace service tells them apart, as everywhere
    if (labels.length === 0) await this.workspaces.getForMember(userId, workspaceId);
    return labels;
  }

  async create(userId: string, workspaceId: string, input: LabelInput): Promise<Label> {
    await this.workspaces.getForMember(userId, workspaceId);
    const { name, color } = checked(input, { name: true, color: true });
    return this.database.transaction(async (trx) => {
      const count = await trx
        .selectFrom('labels')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('workspaceId', '=', workspaceId)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= LABELS_PER_WORKSPACE) throw validationError([`name: a workspace has at most ${LABELS_PER_WORKSPACE} labels`], 'No more labels.');
      await this.requireFreeName(trx, workspaceId, name!);
      const label = { id: newId(), name: name!, color: color! };
      await trx
        .insertInto('labels')
        .values({ ...label, workspaceId, folded: name!.toLowerCase(), createdAt: Date.now() })
        .execute();
      await this.audit.record({ action: 'label.created', workspaceId, target: labelTarget(label), details: { color: label.color } }, trx);
      return label;
    });
  }

  /** Renames or recolours one of the workspace's labels (another workspace's, or one of its labels named under another, is `not_found`). */
  async update(userId: string, workspaceId: string, labelId: string, input: LabelInput): Promise<Label> {
    const label = await this.memberLabel(userId, workspaceId, labelId);
    const { name, color } = checked(input, { name: false, color: false });
    return this.database.transaction(async (trx) => {
      if (name !== undefined && name.toLowerCase() !== label.name.toLowerCase()) await this.requireFreeName(trx, label.workspaceId, name);
      const changed = { name: name ?? label.name, color: color ?? label.color };
      await trx
        .updateTable('labels')
        .set({ ...changed, folded: changed.name.toLowerCase() })
        .where('id', '=', labelId)
        .execute();
      const details = { from: { name: label.name, color: label.color }, to: changed };
      await this.audit.record({ action: 'label.updated', workspaceId: label.workspaceId, target: labelTarget({ id: labelId, ...changed }), details }, trx);
      return { id: labelId, ...changed };
    });
  }

  /** Deletes a label; it leaves every submission that had it. */
  async remove(userId: string, workspaceId: string, labelId: string): Promise<{ workspaceId: string; name: string }> {
    const label = await this.memberLabel(userId, workspaceId, labelId);
    await this.database.transaction(async (trx) => {
      await trx.deleteFrom('labels').where('id', '=', labelId).execute();
      await this.audit.record({ action: 'label.deleted', workspaceId: label.workspaceId, target: labelTarget(label) }, trx);
    });
    return label;
  }

  /** The labels of listed submissions (one query; the caller listed them, so the access is checked), by name. */
  async labelsOf(submissionIds: readonly string[]): Promise<Map<string, Label[]>> {
    const found = new Map<string, Label[]>();
    if (submissionIds.length === 0) return found;
    const rows = await this.pageLabels.execute(this.database.db, {}, submissionIds);
    for (const row of rows) {
      const list = found.get(row.submissionId) ?? [];
      list.push({ id: row.id, name: row.name, color: row.color as LabelColor });
      found.set(row.submissionId, list);
    }
    return found;
  }

  /** Checks, writing nothing, that the submission is the member's and each label one of its workspace. */
  async checkLabels(userId: string, submissionId: string, labelIds: string[]): Promise<void> {
    const submission = await this.memberSubmission(userId, submissionId);
    await this.workspaceLabels(submission.workspaceId, labelIds);
  }

  /** A submission's labels become exactly `labelIds` (each a label of its workspace; `validation_error` otherwise). */
  async setLabels(userId: string, submissionId: string, labelIds: string[], unknown: UnknownLabel = 'validation_error'): Promise<Label[]> {
    const submission = await this.memberSubmission(userId, submissionId);
    const wanted = await this.workspaceLabels(submission.workspaceId, labelIds, unknown);
    await this.database.transaction(async (trx) => {
      await trx.deleteFrom('submissionLabels').where('submissionId', '=', submissionId).execute();
      if (wanted.length > 0) {
        await trx
          .insertInto('submissionLabels')
          .values(wanted.map((label) => ({ submissionId, labelId: label.id, createdAt: Number(submission.createdAt) })))
          .execute();
      }
    });
    return wanted;
  }

  private async memberSubmission(userId: string, submissionId: string): Promise<{ workspaceId: string; createdAt: number | string }> {
    const submission = await this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .select(['submissions.workspaceId', 'submissions.createdAt'])
      .where('submissions.id', '=', submissionId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!submission) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    return submission;
  }

  /** The bulk actions: puts a label on the chosen inbox submissions, or takes it off; answers how many changed. */
  async applyMany(userId: string, scope: MarkScope, ids: string[], labelId: string, add: boolean): Promise<number> {
    const wanted = await this.marks.checkInbox(userId, scope, ids);
    const rows = await this.database.db.selectFrom('submissions').select(['id', 'workspaceId', 'createdAt']).where('id', 'in', wanted).execute();
    if (rows.length === 0) return 0;
    // the dashboard's: another workspace's label is not found there, as another's submission is
    const [label] = await this.workspaceLabels(rows[0]!.workspaceId, [labelId], 'not_found');
    if (!add) {
      const removed = await this.database.db
        .deleteFrom('submissionLabels')
        .where('labelId', '=', label!.id)
        .where('submissionId', 'in', wanted)
        .executeTakeFirst();
      return Number(removed.numDeletedRows);
    }
    const have = new Set(
      (
        await this.database.db
          .selectFrom('submissionLabels')
          .select('submissionId')
          .where('labelId', '=', label!.id)
          .where('submissionId', 'in', wanted)
          .execute()
      ).map((row) => row.submissionId),
    );
    const missing = rows.filter((row) => !have.has(row.id));
    if (missing.length > 0) {
      await this.database.db
        .insertInto('submissionLabels')
        .values(missing.map((row) => ({ submissionId: row.id, labelId: label!.id, createdAt: Number(row.createdAt) })))
        .execute();
    }
    return missing.length;
  }

  private labelsOfWorkspace(db: Queryable, workspaceId: string): Promise<Label[]> {
    return db.selectFrom('labels').select(['id', 'name', 'color']).where('workspaceId', '=', workspaceId).orderBy('folded').execute() as Promise<Label[]>;
  }

  /** The labels named, all of the workspace (`validation_error` names the first that is not). */
  private async workspaceLabels(workspaceId: string, labelIds: string[], unknown: UnknownLabel = 'validation_error'): Promise<Label[]> {
    const ids = [...new Set(labelIds)];
    if (ids.length > LABELS_PER_WORKSPACE) throw validationError([`labelIds: at most ${LABELS_PER_WORKSPACE}`]);
    if (ids.length === 0) return [];
    const found = (await this.labelsOfWorkspace(this.database.db, workspaceId)).filter((label) => ids.includes(label.id));
    const missing = ids.find((id) => !found.some((label) => label.id === id));
    if (missing === undefined) return found;
    if (unknown === 'not_found') throw new ProblemError('not_found', `Label ${missing} was not found.`);
    throw validationError([`labelIds: ${missing} is not a label of the submission’s workspace`], 'No such label in this workspace.');
  }

  private async memberLabel(userId: string, workspaceId: string, labelId: string): Promise<Label & { workspaceId: string }> {
    const label = await this.database.db
      .selectFrom('labels')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'labels.workspaceId')
      .select(['labels.id', 'labels.name', 'labels.color', 'labels.workspaceId'])
      .where('labels.id', '=', labelId)
      .where('labels.workspaceId', '=', workspaceId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!label) throw new ProblemError('not_found', `Label ${labelId} was not found.`);
    return label as Label & { workspaceId: string };
  }

  private async requireFreeName(db: Queryable, workspaceId: string, name: string): Promise<void> {
    const taken = await db.selectFrom('labels').select('id').where('workspaceId', '=', workspaceId).where('folded', '=', name.toLowerCase()).executeTakeFirst();
    if (taken) throw validationError(['name: the workspace has a label of that name'], 'A label of that name exists.');
  }
}

/** The input checked: a name of 1 to LABEL_NAME_MAX characters on one line, a colour of the palette (`required` says which must be there). */
/** A label as the audit log names it. */
function labelTarget(label: { id: string; name: string }) {
  return { kind: 'label', id: label.id, name: label.name };
}

function checked(input: LabelInput, required: { name: boolean; color: boolean }): { name?: string; color?: LabelColor } {
  const problems: string[] = [];
  let name: string | undefined;
  if (input.name !== undefined || required.name) {
    name = typeof input.name === 'string' ? input.name.replace(/\s+/g, ' ').trim() : '';
    // shown on every line that has it: no control or invisible character
    if (name === '') problems.push('name: give the label a name');
    else if ([...name].length > LABEL_NAME_MAX) problems.push(`name: at most ${LABEL_NAME_MAX} characters`);
    else if (/[\p{Cc}\p{Cf}]/u.test(name)) problems.push('name: no control or invisible characters');
  }
  let color: LabelColor | undefined;
  if (input.color !== undefined || required.color) {
    if (isLabelColor(input.color)) color = input.color;
    else problems.push(`color: one of ${LABEL_COLORS.join(', ')}`);
  }
  if (problems.length > 0) throw validationError(problems, 'The label was not saved.');
  return { name, color };
}
