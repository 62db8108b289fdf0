import { Type } from '@sinclair/typebox';
import { DateTime, NullableString, PageOf, PageQuery, StringEnum } from './common.js';
import { SubmissionSchema } from './submission.js';
import { LABEL_COLORS, LABELS_PER_WORKSPACE } from '../domain/labels.js';

// An addition to the spec (issue 41, item 9): the Submission of 2.4 and its lists stay as they are;
// a submission's triage is a resource of its own.

const STATUS = StringEnum(['open', 'done'] as const, '`open` until someone of the team marks it done; new submissions are open.');

/** A submission's triage: open or done, and who of the workspace it is assigned to. */
export const TriageSchema = Type.Object(
  {
    submissionId: Type.String(),
    formId: Type.String(),
    status: STATUS,
    doneAt: Type.Union([DateTime, Type.Null()], { description: 'When it was marked done; null while open.' }),
    assigneeId: NullableString(
      Type.String({ description: 'The id of the workspace member it is assigned to (an account id, as `GET /me` answers); null: nobody.' }),
    ),
    labels: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        color: StringEnum(LABEL_COLORS, 'The label’s colour in the dashboard.'),
      }),
      { description: 'The workspace’s labels the submission carries, by name. Labels are made in the dashboard.' },
    ),
  },
  { $id: 'Triage', description: 'The team’s triage of a submission: open or done, and its assignee. Not part of the Submission.' },
);

/** A change of triage: the status, the assignee (null: nobody), or both. */
export const TriageUpdateBody = Type.Object(
  {
    status: Type.Optional(STATUS),
    assigneeId: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
        description: 'A member of the submission’s workspace, or null for nobody. The member is emailed a link to the submission unless they made the change.',
      }),
    ),
    labelIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: LABELS_PER_WORKSPACE,
        description: 'The labels it carries from now on (each a label of its workspace); an empty list takes every label off.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** A submission of a triage list: the Submission's fields, then its triage. */
export const TriagedSubmissionSchema = Type.Object(
  { ...SubmissionSchema.properties, triage: Type.Ref('Triage') },
  { $id: 'TriagedSubmission', description: 'A submission with its triage: the Submission, and `triage`.' },
);

/** The triage list: the submission lists' paging, and its filters. */
export const TriageListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(
      Type.Unsafe<'open' | 'done'>({
        type: 'string',
        enum: ['open', 'done'],
        minLength: 1,
        description: 'Only open, or only done submissions; both when absent.',
      }),
    ),
    assigneeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only those assigned to this member; `none`: to nobody.' })),
    labelId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only those that carry this label.' })),
  },
  { additionalProperties: false },
);
export const TriagePageSchema = PageOf(Type.Ref('TriagedSubmission'), 'A page of submissions with their triage, newest first.');
